package dev.tern.web.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * The query of a Connect unary GET: {@code message} (percent-encoded, or URL-safe base64 with
 * {@code base64=1}), {@code encoding} ({@code proto} or {@code json}), {@code compression}, and
 * {@code connect=v1}. Immutable once parsed.
 */
final class ConnectGetQuery {
  final String encoding;
  final String compression;
  final String connect;
  final byte[] message;

  private ConnectGetQuery(String encoding, String compression, String connect, byte[] message) {
    this.encoding = encoding;
    this.compression = compression;
    this.connect = connect;
    this.message = message;
  }

  /**
   * Parses {@code rawQuery} (may be null).
   *
   * @throws IllegalArgumentException saying what is wrong: no {@code encoding}, bad base64, a bad
   *     percent escape
   */
  static ConnectGetQuery parse(String rawQuery) {
    Map<String, byte[]> params = new HashMap<>();
    if (rawQuery != null && !rawQuery.isEmpty()) {
      for (String pair : rawQuery.split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        String name =
            new String(
                percentDecode(eq < 0 ? pair : pair.substring(0, eq)), StandardCharsets.UTF_8);
        byte[] value = eq < 0 ? new byte[0] : percentDecode(pair.substring(eq + 1));
        params.putIfAbsent(name, value);
      }
    }
    String encoding = text(params.get("encoding"));
    if (encoding == null || encoding.isEmpty()) {
      throw new IllegalArgumentException("GET request without the 'encoding' query parameter");
    }
    byte[] message = params.getOrDefault("message", new byte[0]);
    if ("1".equals(text(params.get("base64")))) {
      String base64 =
          new String(message, StandardCharsets.US_ASCII).replace('+', '-').replace('/', '_');
      try {
        message = Base64.getUrlDecoder().decode(base64);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "'message' query parameter is not valid base64: " + e.getMessage(), e);
      }
    }
    return new ConnectGetQuery(
        encoding, text(params.get("compression")), text(params.get("connect")), message);
  }

  private static String text(byte[] value) {
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }

  /** Percent-decodes {@code s} to bytes, {@code +} as a space (as HTML forms and Go do). */
  static byte[] percentDecode(String s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '+') {
        out.write(' ');
      } else if (c == '%') {
        if (i + 2 >= s.length()) {
          throw new IllegalArgumentException("incomplete percent escape at index " + i);
        }
        int hi = Character.digit(s.charAt(i + 1), 16);
        int lo = Character.digit(s.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("invalid percent escape at index " + i);
        }
        out.write(hi << 4 | lo);
        i += 2;
      } else {
        out.write(c);
      }
    }
    return out.toByteArray();
  }
}
