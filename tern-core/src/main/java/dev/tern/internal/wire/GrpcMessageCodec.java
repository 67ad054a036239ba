package dev.tern.internal.wire;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Percent-encoding of the {@code grpc-message} header: the UTF-8 bytes of the message, with every
 * byte outside 0x20..0x7E and {@code '%'} itself written as {@code %XX} (upper-case hex).
 *
 * <p>Decoding is lenient, as the protocol asks: a {@code '%'} not followed by two hex digits is
 * kept as is, and bytes that are not valid UTF-8 become U+FFFD rather than failing.
 *
 * <p>Stateless; thread-safe.
 */
public final class GrpcMessageCodec {
  private static final byte[] HEX_DIGITS = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

  private GrpcMessageCodec() {}

  /**
   * Encodes {@code message} for the {@code grpc-message} header. Returns the same instance when
   * nothing needs escaping (the common case), allocating nothing. Unpaired surrogates are encoded
   * as {@code '?'}, like {@link String#getBytes(java.nio.charset.Charset)} does.
   */
  public static String encode(String message) {
    Objects.requireNonNull(message, "message");
    for (int i = 0; i < message.length(); i++) {
      if (needsEscape(message.charAt(i))) {
        return escapeFrom(message, i);
      }
    }
    return message;
  }

  private static boolean needsEscape(int c) {
    return c < 0x20 || c > 0x7E || c == '%';
  }

  private static String escapeFrom(String message, int firstEscape) {
    byte[] utf8 = message.getBytes(StandardCharsets.UTF_8);
    // The prefix before firstEscape is ASCII, so char and byte indexes agree up to there.
    byte[] out = new byte[firstEscape + (utf8.length - firstEscape) * 3];
    System.arraycopy(utf8, 0, out, 0, firstEscape);
    int o = firstEscape;
    for (int i = firstEscape; i < utf8.length; i++) {
      int b = utf8[i] & 0xFF;
      if (needsEscape(b)) {
        out[o++] = '%';
        out[o++] = HEX_DIGITS[b >> 4];
        out[o++] = HEX_DIGITS[b & 0xF];
      } else {
        out[o++] = (byte) b;
      }
    }
    return new String(out, 0, o, StandardCharsets.US_ASCII);
  }

  /**
   * Decodes a {@code grpc-message} value held as a String. Transports that have the header's bytes
   * should prefer {@link #decode(byte[])}. If every char is at most U+00FF, each char is taken as
   * one header byte (the ISO-8859-1 view of header bytes), so a peer that sent raw UTF-8 instead of
   * escapes is still understood; otherwise the String is taken as already-decoded text and its
   * UTF-8 bytes are used. Returns the same instance when it holds only ASCII and no {@code '%'}.
   */
  public static String decode(String value) {
    Objects.requireNonNull(value, "value");
    boolean plainAscii = true;
    boolean latin1 = true;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '%' || c > 0x7F) {
        plainAscii = false;
      }
      if (c > 0xFF) {
        latin1 = false;
      }
    }
    if (plainAscii) {
      return value;
    }
    return decode(value.getBytes(latin1 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8));
  }

  /** Decodes the raw bytes of a {@code grpc-message} header. Never throws on malformed input. */
  public static String decode(byte[] value) {
    Objects.requireNonNull(value, "value");
    byte[] out = null; // allocated at the first escape
    int o = 0;
    for (int i = 0; i < value.length; i++) {
      byte b = value[i];
      if (b == '%' && i + 2 < value.length && isHex(value[i + 1]) && isHex(value[i + 2])) {
        if (out == null) {
          out = new byte[value.length];
          System.arraycopy(value, 0, out, 0, i);
          o = i;
        }
        out[o++] = (byte) (hexValue(value[i + 1]) << 4 | hexValue(value[i + 2]));
        i += 2;
      } else if (out != null) {
        out[o++] = b;
      }
    }
    return out == null
        ? new String(value, StandardCharsets.UTF_8)
        : new String(out, 0, o, StandardCharsets.UTF_8);
  }

  private static boolean isHex(byte b) {
    return (b >= '0' && b <= '9') || (b >= 'A' && b <= 'F') || (b >= 'a' && b <= 'f');
  }

  private static int hexValue(byte b) {
    if (b <= '9') {
      return b - '0';
    }
    return (b | 0x20) - 'a' + 10;
  }
}
