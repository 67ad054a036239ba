package dev.tern.http3.internal.frame;

/**
 * The error codes of HTTP/3 (RFC 9114 section 8.1) and QPACK (RFC 9204 section 6), as sent in
 * CONNECTION_CLOSE, RESET_STREAM and STOP_SENDING, and their names for messages. Stateless.
 */
public final class Http3Errors {
  public static final long H3_NO_ERROR = 0x100;
  public static final long H3_GENERAL_PROTOCOL_ERROR = 0x101;
  public static final long H3_INTERNAL_ERROR = 0x102;
  public static final long H3_STREAM_CREATION_ERROR = 0x103;
  public static final long H3_CLOSED_CRITICAL_STREAM = 0x104;
  public static final long H3_FRAME_UNEXPECTED = 0x105;
  public static final long H3_FRAME_ERROR = 0x106;
  public static final long H3_EXCESSIVE_LOAD = 0x107;
  public static final long H3_ID_ERROR = 0x108;
  public static final long H3_SETTINGS_ERROR = 0x109;
  public static final long H3_MISSING_SETTINGS = 0x10a;
  public static final long H3_REQUEST_REJECTED = 0x10b;
  public static final long H3_REQUEST_CANCELLED = 0x10c;
  public static final long H3_REQUEST_INCOMPLETE = 0x10d;
  public static final long H3_MESSAGE_ERROR = 0x10e;
  public static final long H3_CONNECT_ERROR = 0x10f;
  public static final long H3_VERSION_FALLBACK = 0x110;
  public static final long QPACK_DECOMPRESSION_FAILED = 0x200;
  public static final long QPACK_ENCODER_STREAM_ERROR = 0x201;
  public static final long QPACK_DECODER_STREAM_ERROR = 0x202;

  private static final String[] H3_NAMES = {
    "H3_NO_ERROR",
    "H3_GENERAL_PROTOCOL_ERROR",
    "H3_INTERNAL_ERROR",
    "H3_STREAM_CREATION_ERROR",
    "H3_CLOSED_CRITICAL_STREAM",
    "H3_FRAME_UNEXPECTED",
    "H3_FRAME_ERROR",
    "H3_EXCESSIVE_LOAD",
    "H3_ID_ERROR",
    "H3_SETTINGS_ERROR",
    "H3_MISSING_SETTINGS",
    "H3_REQUEST_REJECTED",
    "H3_REQUEST_CANCELLED",
    "H3_REQUEST_INCOMPLETE",
    "H3_MESSAGE_ERROR",
    "H3_CONNECT_ERROR",
    "H3_VERSION_FALLBACK"
  };

  private static final String[] QPACK_NAMES = {
    "QPACK_DECOMPRESSION_FAILED", "QPACK_ENCODER_STREAM_ERROR", "QPACK_DECODER_STREAM_ERROR"
  };

  private Http3Errors() {}

  /** The name of {@code code}, or its hex value if unknown. */
  public static String name(long code) {
    if (code >= H3_NO_ERROR && code < H3_NO_ERROR + H3_NAMES.length) {
      return H3_NAMES[(int) (code - H3_NO_ERROR)];
    }
    if (code >= QPACK_DECOMPRESSION_FAILED
        && code < QPACK_DECOMPRESSION_FAILED + QPACK_NAMES.length) {
      return QPACK_NAMES[(int) (code - QPACK_DECOMPRESSION_FAILED)];
    }
    return "0x" + Long.toHexString(code);
  }
}
