package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;

/**
 * The Huffman code of RFC 7541 Appendix B, and encoding with it.
 *
 * <p>The code is canonical: within each length, codes are consecutive in symbol order, and each
 * length's first code follows the previous length's last. So the code lengths alone, typed in from
 * the RFC's table, define it; the codes are computed from them at class initialisation (and {@code
 * HpackHuffmanTest} checks them against codes the RFC lists). Immutable, shared by every
 * connection.
 */
final class HpackHuffman {
  /** The end-of-string symbol, which never appears in an encoded string. */
  static final int EOS = 256;

  /** Bit length of each symbol's code, symbols 0 to 256 (EOS), from RFC 7541 Appendix B. */
  private static final byte[] LENGTHS = {
    13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0-15
    28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 16-31
    6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, // 32-47: ' ' to '/'
    5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, // 48-63: '0' to '?'
    13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, // 64-79: '@' to 'O'
    7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, // 80-95: 'P' to '_'
    15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, // 96-111: '`' to 'o'
    6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, // 112-127: 'p' to DEL
    20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 128-143
    24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 144-159
    22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 160-175
    21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 176-191
    26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 192-207
    19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 208-223
    20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 224-239
    26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 240-255
    30 // 256: EOS
  };

  /** Each symbol's code, right-aligned. */
  private static final int[] CODES = canonicalCodes(LENGTHS);

  private HpackHuffman() {}

  /** The length in bits of symbol {@code symbol}'s code. */
  static int length(int symbol) {
    return LENGTHS[symbol];
  }

  /** Symbol {@code symbol}'s code, right-aligned in the int. */
  static int code(int symbol) {
    return CODES[symbol];
  }

  /** Codes assigned in order of (length, symbol), as a canonical Huffman code does. */
  private static int[] canonicalCodes(byte[] lengths) {
    int[] codes = new int[lengths.length];
    int code = 0;
    int previousLength = 0;
    for (int length = 1; length <= 30; length++) {
      for (int symbol = 0; symbol < lengths.length; symbol++) {
        if (lengths[symbol] == length) {
          code <<= length - previousLength;
          previousLength = length;
          codes[symbol] = code++;
        }
      }
    }
    return codes;
  }

  /** The number of bytes {@code bytes} take Huffman-encoded (padding included). */
  static int encodedLength(byte[] bytes) {
    long bits = 0;
    for (byte b : bytes) {
      bits += LENGTHS[b & 0xFF];
    }
    return (int) ((bits + 7) >>> 3);
  }

  /** Writes {@code bytes} Huffman-encoded, padded with the EOS code's leading ones. */
  static void encode(byte[] bytes, ByteBuf out) {
    long bits = 0; // pending bits, right-aligned
    int count = 0; // how many
    for (byte b : bytes) {
      int symbol = b & 0xFF;
      bits = (bits << LENGTHS[symbol]) | CODES[symbol];
      count += LENGTHS[symbol];
      while (count >= 8) {
        count -= 8;
        out.writeByte((int) (bits >>> count));
      }
    }
    if (count > 0) {
      out.writeByte((int) ((bits << (8 - count)) | (0xFF >>> count)));
    }
  }
}
