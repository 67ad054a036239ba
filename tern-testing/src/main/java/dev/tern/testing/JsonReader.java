package dev.tern.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON text (RFC 8259) into plain Java values, for the answers of the tools the harnesses
 * talk to ({@link PrometheusServer}'s query API): an object becomes a {@code Map<String, Object>}
 * in the order of its members, an array a {@code List<Object>}, a string a {@code String}, a number
 * a {@code Double}, {@code true} and {@code false} a {@code Boolean}, and {@code null} {@code
 * null}. Enough for small answers from a trusted program; not a general-purpose library.
 *
 * <p>Stateless API; each call has its own reader. Safe from any thread.
 */
final class JsonReader {
  private final String text;
  private int position;

  private JsonReader(String text) {
    this.text = text;
  }

  /**
   * The value {@code text} holds.
   *
   * @throws IllegalArgumentException when {@code text} is not one JSON value, naming the offset
   */
  static Object read(String text) {
    JsonReader reader = new JsonReader(text);
    Object value = reader.value();
    reader.skipWhitespace();
    if (reader.position != text.length()) {
      throw reader.error("text after the value");
    }
    return value;
  }

  private Object value() {
    skipWhitespace();
    if (position == text.length()) {
      throw error("end of text where a value was expected");
    }
    char c = text.charAt(position);
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
        return literal("null", null);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw error("unexpected '" + c + "'");
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> members = new LinkedHashMap<>();
    position++; // '{'
    skipWhitespace();
    if (consume('}')) {
      return members;
    }
    do {
      skipWhitespace();
      if (position == text.length() || text.charAt(position) != '"') {
        throw error("a member name (a string) expected");
      }
      String name = string();
      skipWhitespace();
      expect(':');
      members.put(name, value());
      skipWhitespace();
    } while (consume(','));
    expect('}');
    return members;
  }

  private List<Object> array() {
    List<Object> elements = new ArrayList<>();
    position++; // '['
    skipWhitespace();
    if (consume(']')) {
      return elements;
    }
    do {
      elements.add(value());
      skipWhitespace();
    } while (consume(','));
    expect(']');
    return elements;
  }

  private String string() {
    position++; // '"'
    StringBuilder value = new StringBuilder();
    while (true) {
      if (position == text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(position++);
      if (c == '"') {
        return value.toString();
      }
      if (c < 0x20) {
        throw error("control character in a string");
      }
      if (c != '\\') {
        value.append(c);
        continue;
      }
      if (position == text.length()) {
        throw error("unterminated escape");
      }
      char escaped = text.charAt(position++);
      switch (escaped) {
        case '"', '\\', '/' -> value.append(escaped);
        case 'b' -> value.append('\b');
        case 'f' -> value.append('\f');
        case 'n' -> value.append('\n');
        case 'r' -> value.append('\r');
        case 't' -> value.append('\t');
        case 'u' -> {
          if (position + 4 > text.length()) {
            throw error("short \\u escape");
          }
          try {
            value.append((char) Integer.parseInt(text.substring(position, position + 4), 16));
          } catch (NumberFormatException e) {
            throw error("bad \\u escape");
          }
          position += 4;
        }
        default -> throw error("bad escape \\" + escaped);
      }
    }
  }

  private Double number() {
    int start = position;
    consume('-');
    int digits = skipDigits();
    if (digits == 0 || (digits > 1 && text.charAt(position - digits) == '0')) {
      throw error("bad number");
    }
    if (consume('.') && skipDigits() == 0) {
      throw error("bad number");
    }
    if (consume('e') || consume('E')) {
      if (!consume('+')) {
        consume('-');
      }
      if (skipDigits() == 0) {
        throw error("bad number");
      }
    }
    return Double.valueOf(text.substring(start, position));
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, position)) {
      throw error("unexpected '" + text.charAt(position) + "'");
    }
    position += word.length();
    return value;
  }

  private int skipDigits() {
    int start = position;
    while (position < text.length()
        && text.charAt(position) >= '0'
        && text.charAt(position) <= '9') {
      position++;
    }
    return position - start;
  }

  private void skipWhitespace() {
    while (position < text.length()) {
      char c = text.charAt(position);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      position++;
    }
  }

  private boolean consume(char c) {
    if (position < text.length() && text.charAt(position) == c) {
      position++;
      return true;
    }
    return false;
  }

  private void expect(char c) {
    if (!consume(c)) {
      throw error("'" + c + "' expected");
    }
  }

  private IllegalArgumentException error(String problem) {
    return new IllegalArgumentException("not JSON: " + problem + " at offset " + position);
  }
}
