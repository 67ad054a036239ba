package dev.tern.xds.internal.rbac;

/** An RBAC config that cannot be enforced; the message names the field within the RBAC message. */
public final class RbacException extends Exception {
  private static final long serialVersionUID = 1L;

  RbacException(String message) {
    super(message);
  }
}
