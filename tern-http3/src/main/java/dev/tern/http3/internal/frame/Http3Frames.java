package dev.tern.http3.internal.frame;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * HTTP/3's frame and stream types, settings (RFC 9114 sections 6.2, 7.2, 11.2) and QPACK's stream
 * types and settings (RFC 9204), and writing the frames Tern sends. Stateless; thread-safe.
 */
public final class Http3Frames {
  public static final long DATA = 0x0;
  public static final long HEADERS = 0x1;
  public static final long CANCEL_PUSH = 0x3;
  public static final long SETTINGS = 0x4;
  public static final long PUSH_PROMISE = 0x5;
  public static final long GOAWAY = 0x7;
  public static final long MAX_PUSH_ID = 0xd;

  /**
   * The first of the reserved frame types 0x1f * N + 0x21 (RFC 9114 section 7.2.8): a frame with no
   * meaning, allowed on any stream, that every receiver ignores.
   */
  public static final long RESERVED = 0x21;

  /** Unidirectional stream types. */
  public static final long CONTROL_STREAM = 0x00;

  public static final long PUSH_STREAM = 0x01;
  public static final long QPACK_ENCODER_STREAM = 0x02;
  public static final long QPACK_DECODER_STREAM = 0x03;

  /** Settings. */
  public static final long SETTINGS_QPACK_MAX_TABLE_CAPACITY = 0x01;

  public static final long SETTINGS_MAX_FIELD_SECTION_SIZE = 0x06;
  public static final long SETTINGS_QPACK_BLOCKED_STREAMS = 0x07;

  private Http3Frames() {}

  /** Whether {@code type} is one of HTTP/3's defined frame types. */
  static boolean isKnown(long type) {
    return type == DATA
        || type == HEADERS
        || type == CANCEL_PUSH
        || type == SETTINGS
        || type == PUSH_PROMISE
        || type == GOAWAY
        || type == MAX_PUSH_ID;
  }

  /** HTTP/2's PRIORITY, PING, WINDOW_UPDATE and CONTINUATION, which HTTP/3 forbids. */
  static boolean isReservedFromHttp2(long type) {
    return type == 0x2 || type == 0x6 || type == 0x8 || type == 0x9;
  }

  static String name(long type) {
    if (type == DATA) {
      return "DATA";
    } else if (type == HEADERS) {
      return "HEADERS";
    } else if (type == CANCEL_PUSH) {
      return "CANCEL_PUSH";
    } else if (type == SETTINGS) {
      return "SETTINGS";
    } else if (type == PUSH_PROMISE) {
      return "PUSH_PROMISE";
    } else if (type == GOAWAY) {
      return "GOAWAY";
    } else if (type == MAX_PUSH_ID) {
      return "MAX_PUSH_ID";
    }
    return "0x" + Long.toHexString(type);
  }

  /**
   * A SETTINGS payload as identifiers and values alternating; H3_SETTINGS_ERROR for an identifier
   * sent twice or one reserved from HTTP/2 (0x02 to 0x05), H3_FRAME_ERROR for a truncated one.
   */
  static long[] parseSettings(ByteBuf payload) throws Http3Exception {
    long[] settings = new long[8];
    int n = 0;
    while (payload.isReadable()) {
      long id = VarInt.read(payload);
      long value = VarInt.read(payload);
      if (id >= 0x02 && id <= 0x05) {
        throw Http3Exception.connection(
            Http3Errors.H3_SETTINGS_ERROR, "HTTP/2 setting 0x" + Long.toHexString(id));
      }
      for (int i = 0; i < n; i += 2) {
        if (settings[i] == id) {
          throw Http3Exception.connection(
              Http3Errors.H3_SETTINGS_ERROR, "setting 0x" + Long.toHexString(id) + " twice");
        }
      }
      if (n == settings.length) {
        settings = Arrays.copyOf(settings, n * 2);
      }
      settings[n++] = id;
      settings[n++] = value;
    }
    return Arrays.copyOf(settings, n);
  }

  /** The value of setting {@code id} in {@code settings}, or {@code otherwise}. */
  public static long setting(long[] settings, long id, long otherwise) {
    for (int i = 0; i < settings.length; i += 2) {
      if (settings[i] == id) {
        return settings[i + 1];
      }
    }
    return otherwise;
  }

  /** Writes a frame's type and length; its payload follows. */
  public static void writeFrameHeader(ByteBuf out, long type, long length) {
    VarInt.write(out, type);
    VarInt.write(out, length);
  }

  /** Writes a HEADERS frame of {@code fields} (names and values alternating), QPACK-encoded. */
  public static void writeHeaders(ByteBuf out, byte[][] fields) {
    ByteBuf block = out.alloc().heapBuffer();
    try {
      QpackEncoder.encode(fields, block);
      writeFrameHeader(out, HEADERS, block.readableBytes());
      out.writeBytes(block);
    } finally {
      block.release();
    }
  }

  /** Writes a SETTINGS frame: identifiers and values alternating. */
  public static void writeSettings(ByteBuf out, long... settings) {
    int length = 0;
    for (long v : settings) {
      length += VarInt.size(v);
    }
    writeFrameHeader(out, SETTINGS, length);
    for (long v : settings) {
      VarInt.write(out, v);
    }
  }

  /** Writes a GOAWAY frame with {@code id}. */
  public static void writeGoAway(ByteBuf out, long id) {
    writeFrameHeader(out, GOAWAY, VarInt.size(id));
    VarInt.write(out, id);
  }
}
