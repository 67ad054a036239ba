package dev.tern.netty.internal.http2;

/** Frame types, flags and sizes of RFC 9113 sections 4 and 6. */
final class Http2Frames {
  static final int HEADER_LENGTH = 9;

  static final int DATA = 0x0;
  static final int HEADERS = 0x1;
  static final int PRIORITY = 0x2;
  static final int RST_STREAM = 0x3;
  static final int SETTINGS = 0x4;
  static final int PUSH_PROMISE = 0x5;
  static final int PING = 0x6;
  static final int GOAWAY = 0x7;
  static final int WINDOW_UPDATE = 0x8;
  static final int CONTINUATION = 0x9;

  static final int FLAG_END_STREAM = 0x1;
  static final int FLAG_ACK = 0x1;
  static final int FLAG_END_HEADERS = 0x4;
  static final int FLAG_PADDED = 0x8;
  static final int FLAG_PRIORITY = 0x20;

  /** SETTINGS_MAX_FRAME_SIZE's initial value, and its lowest. */
  static final int DEFAULT_MAX_FRAME_SIZE = 16_384;

  /** SETTINGS_MAX_FRAME_SIZE's highest value. */
  static final int MAX_FRAME_SIZE_UPPER_BOUND = (1 << 24) - 1;

  static final int MAX_WINDOW_SIZE = Integer.MAX_VALUE;

  private Http2Frames() {}
}
