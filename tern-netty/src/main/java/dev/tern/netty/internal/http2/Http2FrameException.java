package dev.tern.netty.internal.http2;

/**
 * A frame the peer should not have sent (RFC 9113 section 5.4): an error of the whole connection
 * (answer with GOAWAY and close) or of one stream (answer with RST_STREAM, and keep reading), with
 * the error code to send and the reason.
 */
public final class Http2FrameException extends Exception {
  private static final long serialVersionUID = 1L;

  public static final long NO_ERROR = 0x0;
  public static final long PROTOCOL_ERROR = 0x1;
  public static final long INTERNAL_ERROR = 0x2;
  public static final long FLOW_CONTROL_ERROR = 0x3;
  public static final long SETTINGS_TIMEOUT = 0x4;
  public static final long STREAM_CLOSED = 0x5;
  public static final long FRAME_SIZE_ERROR = 0x6;
  public static final long REFUSED_STREAM = 0x7;
  public static final long CANCEL = 0x8;
  public static final long COMPRESSION_ERROR = 0x9;
  public static final long CONNECT_ERROR = 0xa;
  public static final long ENHANCE_YOUR_CALM = 0xb;
  public static final long INADEQUATE_SECURITY = 0xc;
  public static final long HTTP_1_1_REQUIRED = 0xd;

  /** The names of the codes of RFC 9113 section 7, by code. */
  private static final String[] ERROR_NAMES = {
    "NO_ERROR",
    "PROTOCOL_ERROR",
    "INTERNAL_ERROR",
    "FLOW_CONTROL_ERROR",
    "SETTINGS_TIMEOUT",
    "STREAM_CLOSED",
    "FRAME_SIZE_ERROR",
    "REFUSED_STREAM",
    "CANCEL",
    "COMPRESSION_ERROR",
    "CONNECT_ERROR",
    "ENHANCE_YOUR_CALM",
    "INADEQUATE_SECURITY",
    "HTTP_1_1_REQUIRED"
  };

  private final int streamId;
  private final long errorCode;

  /** Whether the stream error counts against the reset limit ({@code Http2FloodGuard}). */
  private final boolean counted;

  private Http2FrameException(int streamId, long errorCode, String reason) {
    this(streamId, errorCode, reason, true);
  }

  private Http2FrameException(int streamId, long errorCode, String reason, boolean counted) {
    super(reason);
    this.streamId = streamId;
    this.errorCode = errorCode;
    this.counted = counted;
  }

  /** The name of an error code (RFC 9113 section 7), or its hex value if unknown. */
  public static String errorName(long errorCode) {
    return errorCode >= 0 && errorCode < ERROR_NAMES.length
        ? ERROR_NAMES[(int) errorCode]
        : "0x" + Long.toHexString(errorCode);
  }

  /** An error of the whole connection: the answer is GOAWAY with {@code reason} as debug data. */
  public static Http2FrameException connection(long errorCode, String reason) {
    return new Http2FrameException(0, errorCode, reason);
  }

  static Http2FrameException stream(int streamId, long errorCode, String reason) {
    return new Http2FrameException(streamId, errorCode, reason);
  }

  /**
   * A frame on one of this side's streams closed longer ago than is remembered: most likely one
   * this side reset while the peer's frames were in flight (RFC 9113 section 5.1 lets an endpoint
   * limit how long it ignores them). The stream is reset again, but the peer caused nothing: the
   * error does not count against the reset limit, or a client cancelling many calls at their
   * deadlines would close its own connection.
   */
  static Http2FrameException lateOnOwnStream(int streamId, String reason) {
    return new Http2FrameException(streamId, STREAM_CLOSED, reason, false);
  }

  /** Whether this stream error counts against the reset limit as one the peer caused. */
  public boolean counted() {
    return counted;
  }

  /** Whether the connection must end (GOAWAY), rather than one stream (RST_STREAM). */
  public boolean connectionError() {
    return streamId == 0;
  }

  /** The stream to reset, for a stream error; 0 for a connection error. */
  public int streamId() {
    return streamId;
  }

  /** The RFC 9113 error code to send. */
  public long errorCode() {
    return errorCode;
  }
}
