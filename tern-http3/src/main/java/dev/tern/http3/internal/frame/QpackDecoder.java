package dev.tern.http3.internal.frame;

import dev.tern.netty.internal.http2.HeaderSink;
import dev.tern.netty.internal.http2.HpackException;
import dev.tern.netty.internal.http2.Huffman;
import io.netty.buffer.ByteBuf;

/**
 * Decodes QPACK field sections (RFC 9204 section 4.5) with the dynamic table's capacity at 0, as
 * Tern announces in its SETTINGS: the static table and literals only, so every section decodes on
 * its own, no stream ever blocks and the encoder and decoder streams carry nothing. A section that
 * names the dynamic table (a Required Insert Count other than 0, a dynamic or post-base index) is
 * QPACK_DECOMPRESSION_FAILED, a connection error, as are truncated or oversized integers and
 * strings and bad Huffman strings. Strings are Huffman-decoded with HPACK's code (the same one).
 *
 * <p>Fields go to a {@link HeaderSink} one at a time, so a request's fields land straight in its
 * metadata. The section's size (RFC 9114 section 4.2.2: names and values plus 32 bytes per field)
 * is counted as it decodes; past the limit, decoding stops and {@link #decode} says so, and the
 * caller refuses the request (HTTP 431, RESOURCE_EXHAUSTED) as on HTTP/2.
 *
 * <p>Stateless besides its limit; thread-safe.
 */
public final class QpackDecoder {
  /** QPACK's integers, like QUIC's, stop at 62 bits. */
  private static final long MAX_INTEGER = (1L << 62) - 1;

  private final long maxFieldSectionSize;

  /**
   * @param maxFieldSectionSize the largest field section accepted, in RFC 9114's measure
   */
  public QpackDecoder(long maxFieldSectionSize) {
    if (maxFieldSectionSize <= 0) {
      throw new IllegalArgumentException(
          "maxFieldSectionSize must be positive: " + maxFieldSectionSize);
    }
    this.maxFieldSectionSize = maxFieldSectionSize;
  }

  /**
   * Decodes the whole field section in {@code block} (reader index moved to its end) into {@code
   * sink}.
   *
   * @return false if the section is larger than the limit (decoding stopped there)
   * @throws Http3Exception QPACK_DECOMPRESSION_FAILED (a connection error) for what cannot be
   *     decoded, or H3_MESSAGE_ERROR (a stream error) if the sink refuses a field
   */
  public boolean decode(ByteBuf block, HeaderSink sink) throws Http3Exception {
    long requiredInsertCount = readInt(block, 8);
    if (!block.isReadable()) {
      throw failed("field section prefix truncated");
    }
    readInt(block, 7); // Delta Base: with no dynamic table there is nothing to count from
    if (requiredInsertCount != 0) {
      throw failed(
          "field section needs dynamic table entries (Required Insert Count "
              + requiredInsertCount
              + "), but its capacity is 0");
    }
    long size = 0;
    while (block.isReadable()) {
      int first = block.getByte(block.readerIndex()) & 0xFF;
      byte[] name;
      byte[] value;
      boolean sensitive;
      if ((first & 0x80) != 0) { // Indexed Field Line
        int index = staticIndex(first & 0x40, readInt(block, 6));
        name = QpackStaticTable.name(index);
        value = QpackStaticTable.value(index);
        sensitive = false;
      } else if ((first & 0xC0) == 0x40) { // Literal Field Line With Name Reference
        sensitive = (first & 0x20) != 0;
        int index = staticIndex(first & 0x10, readInt(block, 4));
        name = QpackStaticTable.name(index);
        value = readString(block, 7);
      } else if ((first & 0xE0) == 0x20) { // Literal Field Line With Literal Name
        sensitive = (first & 0x10) != 0;
        name = readString(block, 3);
        value = readString(block, 7);
      } else { // post-base forms: dynamic table entries
        throw failed("post-base index, but the dynamic table's capacity is 0");
      }
      size += name.length + value.length + 32L;
      if (size > maxFieldSectionSize) {
        block.skipBytes(block.readableBytes());
        return false;
      }
      try {
        sink.header(name, value, sensitive);
      } catch (HpackException e) {
        throw Http3Exception.stream(Http3Errors.H3_MESSAGE_ERROR, e.getMessage());
      }
    }
    return true;
  }

  private static int staticIndex(int staticBit, long index) throws Http3Exception {
    if (staticBit == 0) {
      throw failed("dynamic table index " + index + ", but the dynamic table's capacity is 0");
    }
    if (index >= QpackStaticTable.SIZE) {
      throw failed("static table index " + index + " out of range");
    }
    return (int) index;
  }

  /** A string literal whose length has a {@code prefixBits}-bit prefix after its Huffman flag. */
  private static byte[] readString(ByteBuf in, int prefixBits) throws Http3Exception {
    if (!in.isReadable()) {
      throw failed("string literal truncated");
    }
    boolean huffman = (in.getByte(in.readerIndex()) & (1 << prefixBits)) != 0;
    long length = readInt(in, prefixBits);
    if (length > in.readableBytes()) {
      throw failed("string literal of " + length + " bytes, " + in.readableBytes() + " left");
    }
    int index = in.readerIndex();
    in.skipBytes((int) length);
    if (!huffman) {
      byte[] bytes = new byte[(int) length];
      in.getBytes(index, bytes);
      return bytes;
    }
    try {
      return Huffman.decode(in, index, (int) length);
    } catch (HpackException e) {
      throw failed(e.getMessage());
    }
  }

  /**
   * An integer with a {@code prefixBits}-bit prefix (RFC 7541 section 5.1, as QPACK uses it); the
   * bits above the prefix in the first byte are the caller's.
   */
  static long readInt(ByteBuf in, int prefixBits) throws Http3Exception {
    if (!in.isReadable()) {
      throw failed("integer truncated");
    }
    int max = (1 << prefixBits) - 1;
    long value = in.readByte() & max;
    if (value < max) {
      return value;
    }
    for (int shift = 0; ; shift += 7) {
      if (!in.isReadable()) {
        throw failed("integer truncated");
      }
      if (shift > 56) {
        throw failed("integer longer than 62 bits");
      }
      int b = in.readByte() & 0xFF;
      long addend = (long) (b & 0x7F) << shift; // below 2^63: shift is at most 56
      if (addend > MAX_INTEGER - value) {
        throw failed("integer longer than 62 bits");
      }
      value += addend;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
  }

  private static Http3Exception failed(String reason) {
    return Http3Exception.connection(Http3Errors.QPACK_DECOMPRESSION_FAILED, reason);
  }
}
