package dev.tern.xds.internal.filter;

/**
 * A filter config that cannot be used; the message names the field inside the config (the caller
 * puts the resource, filter and place in front of it).
 */
public final class FilterConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  FilterConfigException(String message) {
    super(message);
  }
}
