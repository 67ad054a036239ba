package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;

/**
 * The Huffman code of RFC 7541 Appendix B for other header compressors: QPACK (RFC 9204 section
 * 4.1.2) uses HPACK's code unchanged, so tern-http3 encodes and decodes its strings here instead of
 * keeping a second copy of the table. Stateless; thread-safe.
 */
public final class Huffman {
  private static final HuffmanDecoder DECODER = new HuffmanDecoder();

  private Huffman() {}

  /**
   * Decodes the {@code length} bytes of {@code in} at {@code index} (reader index untouched).
   *
   * @return the decoded bytes, a new array the caller may keep
   * @throws HpackException the string holds EOS or ends in bad padding
   */
  public static byte[] decode(ByteBuf in, int index, int length) throws HpackException {
    return DECODER.decode(in, index, length);
  }

  /** The number of bytes {@code bytes} take Huffman-encoded (padding included). */
  public static int encodedLength(byte[] bytes) {
    return HpackHuffman.encodedLength(bytes);
  }

  /** Writes {@code bytes} Huffman-encoded, padded with the EOS code's leading ones. */
  public static void encode(byte[] bytes, ByteBuf out) {
    HpackHuffman.encode(bytes, out);
  }
}
