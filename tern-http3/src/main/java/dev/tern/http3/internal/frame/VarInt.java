package dev.tern.http3.internal.frame;

import io.netty.buffer.ByteBuf;

/**
 * QUIC's variable-length integers (RFC 9000 section 16), which HTTP/3 uses for frame types, lengths
 * and settings: the two top bits of the first byte give the length (1, 2, 4 or 8 bytes), the rest
 * is the value, big-endian, up to 2^62 - 1. Stateless; thread-safe.
 */
public final class VarInt {
  /** The largest value a variable-length integer holds. */
  public static final long MAX = (1L << 62) - 1;

  private VarInt() {}

  /** The length in bytes of the integer whose first byte is {@code first}. */
  public static int lengthOf(byte first) {
    return 1 << ((first & 0xC0) >>> 6);
  }

  /** The bytes {@code value} takes. */
  public static int size(long value) {
    if (value < 0 || value > MAX) {
      throw new IllegalArgumentException("value out of range for a varint: " + value);
    }
    return value < 64 ? 1 : value < 16384 ? 2 : value < 1073741824 ? 4 : 8;
  }

  /**
   * Reads the integer at {@code index} of {@code in} (reader index untouched); the caller has
   * checked that {@link #lengthOf} bytes are there.
   */
  public static long get(ByteBuf in, int index) {
    int length = lengthOf(in.getByte(index));
    long value = in.getByte(index) & 0x3F;
    for (int i = 1; i < length; i++) {
      value = (value << 8) | (in.getByte(index + i) & 0xFF);
    }
    return value;
  }

  /**
   * Reads an integer at the reader index and moves past it.
   *
   * @throws Http3Exception H3_FRAME_ERROR if {@code in} ends inside it
   */
  public static long read(ByteBuf in) throws Http3Exception {
    if (!in.isReadable() || in.readableBytes() < lengthOf(in.getByte(in.readerIndex()))) {
      throw Http3Exception.connection(
          Http3Errors.H3_FRAME_ERROR, "truncated variable-length integer");
    }
    long value = get(in, in.readerIndex());
    in.skipBytes(lengthOf(in.getByte(in.readerIndex())));
    return value;
  }

  /** Writes {@code value} in the fewest bytes. */
  public static void write(ByteBuf out, long value) {
    switch (size(value)) {
      case 1 -> out.writeByte((int) value);
      case 2 -> out.writeShort((int) (0x4000 | value));
      case 4 -> out.writeInt((int) (0x80000000L | value));
      default -> out.writeLong(0xC000000000000000L | value);
    }
  }
}
