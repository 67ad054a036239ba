package dev.tern.web.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;
import java.util.Base64;

/**
 * The base64 of gRPC-Web's text mode. Decodes a request body as it arrives, in any chunking: the
 * body may be several padded base64 chunks one after another (a client encodes each write on its
 * own), so a quantum with padding ends a chunk and the next starts fresh. Line breaks and spaces
 * are skipped. Encodes each response write on its own, padded, so a streaming response can be
 * decoded write by write.
 *
 * <p>Not thread-safe: one per request, on its event loop.
 */
final class Base64Body {
  private static final byte INVALID = -1;
  private static final byte PAD = -2;
  private static final byte SKIP = -3;
  private static final byte[] TABLE = new byte[256];

  static {
    Arrays.fill(TABLE, INVALID);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      TABLE[alphabet.charAt(i)] = (byte) i;
    }
    // The URL-safe alphabet too: unambiguous, and some clients use it.
    TABLE['-'] = 62;
    TABLE['_'] = 63;
    TABLE['='] = PAD;
    TABLE['\r'] = SKIP;
    TABLE['\n'] = SKIP;
    TABLE[' '] = SKIP;
    TABLE['\t'] = SKIP;
  }

  private final byte[] quantum = new byte[4];
  private int quantumLength;
  private long offset;

  /**
   * Decodes {@code data} (not released here) into a new buffer from {@code alloc}; an incomplete
   * quantum waits for the next call.
   *
   * @throws IllegalArgumentException if the bytes are not base64, saying where
   */
  ByteBuf decode(ByteBuf data, ByteBufAllocator alloc) {
    int length = data.readableBytes();
    ByteBuf out = alloc.buffer(length / 4 * 3 + 3);
    try {
      for (int i = data.readerIndex(), end = i + length; i < end; i++, offset++) {
        int b = data.getByte(i) & 0xFF;
        byte value = TABLE[b];
        if (value == SKIP) {
          continue;
        }
        if (value == INVALID) {
          throw new IllegalArgumentException(
              "invalid base64 character 0x" + Integer.toHexString(b) + " at offset " + offset);
        }
        quantum[quantumLength++] = value;
        if (quantumLength == 4) {
          writeQuantum(out);
          quantumLength = 0;
        }
      }
      data.skipBytes(length);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /**
   * The body ended.
   *
   * @throws IllegalArgumentException if it ended inside a quantum
   */
  void finish() {
    if (quantumLength != 0) {
      throw new IllegalArgumentException(
          "base64 body ends with "
              + quantumLength
              + " character(s) of an incomplete 4-character group (missing padding?)");
    }
  }

  private void writeQuantum(ByteBuf out) {
    if (quantum[0] == PAD || quantum[1] == PAD || (quantum[2] == PAD && quantum[3] != PAD)) {
      throw new IllegalArgumentException("misplaced base64 padding before offset " + offset);
    }
    int bits = quantum[0] << 18 | quantum[1] << 12;
    if (quantum[2] == PAD) {
      out.writeByte(bits >> 16);
      return;
    }
    bits |= quantum[2] << 6;
    if (quantum[3] == PAD) {
      out.writeByte(bits >> 16);
      out.writeByte(bits >> 8);
      return;
    }
    bits |= quantum[3];
    out.writeByte(bits >> 16);
    out.writeByte(bits >> 8);
    out.writeByte(bits);
  }

  /** {@code data} as padded base64 in a new buffer; releases {@code data}. */
  static ByteBuf encode(ByteBuf data, ByteBufAllocator alloc) {
    try {
      byte[] bytes = new byte[data.readableBytes()];
      data.readBytes(bytes);
      byte[] encoded = Base64.getEncoder().encode(bytes);
      return alloc.buffer(encoded.length).writeBytes(encoded);
    } finally {
      data.release();
    }
  }
}
