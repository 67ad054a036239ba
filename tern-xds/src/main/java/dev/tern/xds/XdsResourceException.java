package dev.tern.xds;

/**
 * A resource that fails validation; its message names the resource and the field, e.g. {@code
 * Cluster "c1": lb_policy MAGLEV is not supported}. It becomes part of the NACK's error_detail.
 */
public final class XdsResourceException extends Exception {
  private static final long serialVersionUID = 1L;

  XdsResourceException(String message) {
    super(message);
  }
}
