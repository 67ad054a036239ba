package dev.tern.xds;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON parser (RFC 8259) for the bootstrap file: objects become {@code Map<String, Object>}
 * (in document order, unmodifiable), arrays {@code List<Object>}, strings {@code String}, numbers
 * {@code Double}, {@code true}/{@code false} {@code Boolean}, and {@code null} the {@link #NULL}
 * marker (a map cannot hold Java's null). A duplicate key is an error.
 *
 * <p>Stateless apart from one parse's position; a parser instance serves one parse on one thread.
 */
final class Json {
  /** JSON's null. */
  static final Object NULL =
      new Object() {
        @Override
        public String toString() {
          return "null";
        }
      };

  private static final int MAX_DEPTH = 100;

  private final String text;
  private int pos;
  private int depth;

  private Json(String text) {
    this.text = text;
  }

  /**
   * Parses one JSON value that is all of {@code text}.
   *
   * @throws IllegalArgumentException saying what is wrong and at which offset
   */
  static Object parse(String text) {
    Json parser = new Json(text);
    parser.skipSpace();
    Object value = parser.value();
    parser.skipSpace();
    if (parser.pos != text.length()) {
      throw parser.error("unexpected text after the value");
    }
    return value;
  }

  private Object value() {
    if (pos >= text.length()) {
      throw error("unexpected end of input");
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", NULL);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw error("unexpected character '" + c + "'");
    }
  }

  private Map<String, Object> object() {
    enter();
    pos++; // {
    Map<String, Object> map = new LinkedHashMap<>();
    skipSpace();
    if (peek() == '}') {
      pos++;
      depth--;
      return Collections.unmodifiableMap(map);
    }
    while (true) {
      skipSpace();
      if (peek() != '"') {
        throw error("expected a string key");
      }
      int keyAt = pos;
      String key = string();
      skipSpace();
      expect(':');
      skipSpace();
      Object value = value();
      if (map.put(key, value) != null) {
        pos = keyAt;
        throw error("duplicate key \"" + key + "\"");
      }
      skipSpace();
      char c = peek();
      pos++;
      if (c == '}') {
        depth--;
        return Collections.unmodifiableMap(map);
      }
      if (c != ',') {
        pos--;
        throw error("expected ',' or '}'");
      }
    }
  }

  private List<Object> array() {
    enter();
    pos++; // [
    List<Object> list = new ArrayList<>();
    skipSpace();
    if (peek() == ']') {
      pos++;
      depth--;
      return Collections.unmodifiableList(list);
    }
    while (true) {
      skipSpace();
      list.add(value());
      skipSpace();
      char c = peek();
      pos++;
      if (c == ']') {
        depth--;
        return Collections.unmodifiableList(list);
      }
      if (c != ',') {
        pos--;
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() {
    pos++; // "
    StringBuilder out = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        return out.toString();
      }
      if (c < 0x20) {
        pos--;
        throw error("control character in a string");
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char e = text.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          if (pos + 4 > text.length()) {
            throw error("short \\u escape");
          }
          try {
            out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
          } catch (NumberFormatException ex) {
            throw error("bad \\u escape");
          }
          pos += 4;
        }
        default -> {
          pos--;
          throw error("bad escape '\\" + e + "'");
        }
      }
    }
  }

  private Double number() {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    if (peek() == '0') {
      pos++;
    } else if (Character.isDigit(peek())) {
      digits();
    } else {
      throw error("bad number");
    }
    if (peek() == '.') {
      pos++;
      if (!Character.isDigit(peek())) {
        throw error("bad number");
      }
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      pos++;
      if (peek() == '+' || peek() == '-') {
        pos++;
      }
      if (!Character.isDigit(peek())) {
        throw error("bad number");
      }
      digits();
    }
    return Double.valueOf(text.substring(start, pos));
  }

  private void digits() {
    while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
      pos++;
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, pos)) {
      throw error("unexpected character '" + text.charAt(pos) + "'");
    }
    pos += word.length();
    return value;
  }

  private void enter() {
    if (++depth > MAX_DEPTH) {
      throw error("nested deeper than " + MAX_DEPTH);
    }
  }

  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    pos++;
  }

  private void skipSpace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("invalid JSON at offset " + pos + ": " + what);
  }
}
