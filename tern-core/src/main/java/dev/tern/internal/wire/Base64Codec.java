package dev.tern.internal.wire;

import java.util.Base64;
import java.util.Objects;

/**
 * Base64 (standard alphabet, RFC 4648 section 4) for binary ({@code -bin}) metadata values.
 *
 * <p>gRPC senders may omit padding and receivers must accept both forms, so {@link #decodeBase64}
 * accepts padded and unpadded input. A header value holding several comma-separated elements must
 * be split by the transport first: this codec decodes exactly one element.
 *
 * <p>Stateless; thread-safe.
 */
public final class Base64Codec {
  /** Marks bytes that are not in the standard alphabet. */
  private static final byte INVALID = -1;

  /** Maps an ASCII byte to its 6-bit value, or {@link #INVALID}. */
  private static final byte[] DECODE_TABLE = buildDecodeTable();

  private static final Base64.Encoder UNPADDED_ENCODER = Base64.getEncoder().withoutPadding();

  private Base64Codec() {}

  private static byte[] buildDecodeTable() {
    byte[] table = new byte[128];
    java.util.Arrays.fill(table, INVALID);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      table[alphabet.charAt(i)] = (byte) i;
    }
    return table;
  }

  /**
   * Encodes {@code value} as standard-alphabet base64 without padding (the shortest form gRPC
   * receivers accept).
   *
   * @return a new array of ASCII bytes
   */
  public static byte[] encodeBase64NoPadding(byte[] value) {
    Objects.requireNonNull(value, "value");
    return UNPADDED_ENCODER.encode(value);
  }

  /**
   * Decodes one base64 element, {@code src[offset..offset+length)}, padded or not.
   *
   * @return a new array holding exactly the decoded bytes
   * @throws IllegalArgumentException if the range is not valid standard-alphabet base64: a
   *     character outside the alphabet, misplaced or excess padding, padding on an input whose
   *     length is not a multiple of 4, or a length that leaves a single dangling character
   */
  public static byte[] decodeBase64(byte[] src, int offset, int length) {
    Objects.requireNonNull(src, "src");
    Objects.checkFromIndexSize(offset, length, src.length);
    int end = offset + length;
    int dataEnd = end;
    // At most two '=' at the very end; the padded form must then be a whole number of quanta.
    if (dataEnd > offset && src[dataEnd - 1] == '=') {
      dataEnd--;
      if (dataEnd > offset && src[dataEnd - 1] == '=') {
        dataEnd--;
      }
      if (length % 4 != 0) {
        throw new IllegalArgumentException(
            "base64 with padding must have a length that is a multiple of 4, got " + length);
      }
    }
    int dataLength = dataEnd - offset;
    int tail = dataLength % 4;
    if (tail == 1) {
      throw new IllegalArgumentException(
          "base64 length " + dataLength + " (without padding) leaves a dangling character");
    }
    byte[] out = new byte[dataLength / 4 * 3 + (tail == 0 ? 0 : tail - 1)];
    int in = offset;
    int o = 0;
    int fullEnd = offset + dataLength - tail;
    while (in < fullEnd) {
      int bits =
          sextet(src, in) << 18
              | sextet(src, in + 1) << 12
              | sextet(src, in + 2) << 6
              | sextet(src, in + 3);
      out[o++] = (byte) (bits >> 16);
      out[o++] = (byte) (bits >> 8);
      out[o++] = (byte) bits;
      in += 4;
    }
    if (tail == 2) {
      int bits = sextet(src, in) << 18 | sextet(src, in + 1) << 12;
      out[o] = (byte) (bits >> 16);
    } else if (tail == 3) {
      int bits = sextet(src, in) << 18 | sextet(src, in + 1) << 12 | sextet(src, in + 2) << 6;
      out[o++] = (byte) (bits >> 16);
      out[o] = (byte) (bits >> 8);
    }
    return out;
  }

  private static int sextet(byte[] src, int index) {
    byte b = src[index];
    byte value = b >= 0 ? DECODE_TABLE[b] : INVALID;
    if (value == INVALID) {
      throw new IllegalArgumentException(
          "invalid base64 character 0x"
              + Integer.toHexString(b & 0xFF)
              + " ('"
              + (char) (b & 0xFF)
              + "') at index "
              + index);
    }
    return value;
  }
}
