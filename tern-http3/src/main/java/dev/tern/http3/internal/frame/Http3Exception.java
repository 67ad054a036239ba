package dev.tern.http3.internal.frame;

/**
 * A violation of HTTP/3 or QPACK by the peer, with the error code to send and its scope, said at
 * the throw site: a connection error closes the whole QUIC connection (CONNECTION_CLOSE), a stream
 * error resets only the stream it happened on (RFC 9114 section 8).
 */
public final class Http3Exception extends Exception {
  private static final long serialVersionUID = 1L;

  private final long code;
  private final boolean connectionError;

  private Http3Exception(long code, boolean connectionError, String reason) {
    super(Http3Errors.name(code) + ": " + reason);
    this.code = code;
    this.connectionError = connectionError;
  }

  /** An error that closes the connection with {@code code}. */
  public static Http3Exception connection(long code, String reason) {
    return new Http3Exception(code, true, reason);
  }

  /** An error that resets only the stream it happened on, with {@code code}. */
  public static Http3Exception stream(long code, String reason) {
    return new Http3Exception(code, false, reason);
  }

  /** The HTTP/3 or QPACK error code. */
  public long code() {
    return code;
  }

  /** Whether the whole connection is to be closed (otherwise only the stream is reset). */
  public boolean connectionError() {
    return connectionError;
  }
}
