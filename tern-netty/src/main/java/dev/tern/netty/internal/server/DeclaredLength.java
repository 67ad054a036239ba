package dev.tern.netty.internal.server;

/**
 * A request body counted against the {@code content-length} its headers declared: a body that
 * differs makes the request malformed (RFC 9113 section 8.1.1), whether it became a call or was
 * answered without one.
 *
 * <p>Event loop only; not thread-safe.
 */
final class DeclaredLength {
  private final long declared;
  private long received;

  DeclaredLength(long declared) {
    this.declared = declared;
  }

  /**
   * Counts {@code bytes} of request DATA.
   *
   * @return why the body breaks the declared length, or null
   */
  String received(int bytes, boolean endStream) {
    received += bytes;
    if (received > declared || (endStream && received != declared)) {
      return "request body of "
          + received
          + (endStream ? "" : "+")
          + " bytes, content-length "
          + declared;
    }
    return null;
  }
}
