package dev.tern.netty.internal.http2;

/**
 * A header block that cannot be decoded, with the reason. A connection error (the default: the
 * dynamic table can no longer be trusted, so the connection must end with COMPRESSION_ERROR) or,
 * when {@link #connectionError()} is false, an error of the one stream whose block it was (the
 * header list was too large, but the block was decoded to its end and the table is still in step
 * with the peer's).
 */
public final class HpackException extends Exception {
  private static final long serialVersionUID = 1L;

  private final boolean connectionError;

  private HpackException(String reason, boolean connectionError) {
    super(reason);
    this.connectionError = connectionError;
  }

  /** A COMPRESSION_ERROR of the whole connection. */
  static HpackException compression(String reason) {
    return new HpackException(reason, true);
  }

  /** An error of the block's stream only; the decoder stays usable. */
  static HpackException stream(String reason) {
    return new HpackException(reason, false);
  }

  /** Whether the connection must end (COMPRESSION_ERROR), rather than only the stream. */
  public boolean connectionError() {
    return connectionError;
  }
}
