package dev.tern.internal.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A strict RFC 8259 JSON parser, Tern's only one: for service configs, and shared (exported to
 * those modules only, see tern-core's module-info) with tern-authz's policy files and the test
 * tools' reading of the answers of the programs they run. Not API. Objects become unmodifiable
 * {@code Map<String, Object>}s in document order, arrays unmodifiable {@code List<Object>}s,
 * numbers {@link Double}s, strings {@link String}s, {@code true}/{@code false} {@link Boolean}s and
 * {@code null} Java null.
 *
 * <p>Anything RFC 8259 does not allow is refused with an {@link IllegalArgumentException} naming
 * the offset and the problem: trailing data, duplicate keys, leading zeros, {@code NaN}, unescaped
 * control characters, and so on. Lone surrogates written as unicode escapes are kept as they are.
 *
 * <p>Each instance parses one document; the static methods are thread-safe.
 */
public final class JsonParser {
  /** Bounds recursion so a hostile document cannot overflow the stack. */
  static final int MAX_DEPTH = 100;

  private final String json;
  private int pos;
  private int depth;

  private JsonParser(String json) {
    this.json = json;
  }

  /**
   * Parses one JSON value.
   *
   * @throws IllegalArgumentException if {@code json} is not exactly one valid JSON value
   */
  public static Object parse(String json) {
    JsonParser parser = new JsonParser(Objects.requireNonNull(json, "json"));
    parser.skipWhitespace();
    Object value = parser.readValue();
    parser.skipWhitespace();
    if (parser.pos < json.length()) {
      throw fail(parser.pos, "unexpected " + describe(json.charAt(parser.pos)), " after the value");
    }
    return value;
  }

  /**
   * Parses a JSON document whose top level is an object.
   *
   * @throws IllegalArgumentException if {@code json} is not valid JSON or not an object
   */
  @SuppressWarnings("unchecked") // readObject builds only Map<String, Object>
  public static Map<String, ?> parseObject(String json) {
    Object value = parse(json);
    if (!(value instanceof Map)) {
      throw new IllegalArgumentException(
          "JSON: expected an object at top level, got " + typeName(value));
    }
    return (Map<String, ?>) value;
  }

  /** The JSON type of a parsed value, for error messages. */
  static String typeName(Object value) {
    if (value == null) {
      return "null";
    } else if (value instanceof Map) {
      return "object";
    } else if (value instanceof List) {
      return "array";
    } else if (value instanceof String) {
      return "string";
    } else if (value instanceof Boolean) {
      return "boolean";
    }
    return "number";
  }

  private Object readValue() {
    if (pos >= json.length()) {
      throw unexpected("a value");
    }
    return switch (json.charAt(pos)) {
      case '{' -> readObject();
      case '[' -> readArray();
      case '"' -> readString();
      case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' -> readNumber();
      default -> readLiteral();
    };
  }

  private Map<String, Object> readObject() {
    enter();
    pos++; // '{'
    Map<String, Object> map = new LinkedHashMap<>();
    skipWhitespace();
    if (!consume('}')) {
      do {
        skipWhitespace();
        int keyOffset = pos;
        if (pos >= json.length() || json.charAt(pos) != '"') {
          throw unexpected("a string key");
        }
        String key = readString();
        if (map.containsKey(key)) {
          throw fail(keyOffset, "duplicate key \"" + key + "\"", "");
        }
        skipWhitespace();
        if (!consume(':')) {
          throw unexpected("':'");
        }
        skipWhitespace();
        map.put(key, readValue());
        skipWhitespace();
      } while (consume(','));
      if (!consume('}')) {
        throw unexpected("',' or '}'");
      }
    }
    depth--;
    return Collections.unmodifiableMap(map);
  }

  private List<Object> readArray() {
    enter();
    pos++; // '['
    List<Object> list = new ArrayList<>();
    skipWhitespace();
    if (!consume(']')) {
      do {
        skipWhitespace();
        list.add(readValue());
        skipWhitespace();
      } while (consume(','));
      if (!consume(']')) {
        throw unexpected("',' or ']'");
      }
    }
    depth--;
    return Collections.unmodifiableList(list);
  }

  private String readString() {
    int start = pos;
    pos++; // '"'
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= json.length()) {
        throw fail(start, "unterminated string", "");
      }
      char c = json.charAt(pos);
      if (c == '"') {
        pos++;
        return sb.toString();
      } else if (c == '\\') {
        readEscape(sb, start);
      } else if (c < 0x20) {
        throw fail(pos, "unescaped " + describe(c) + " in a string", "");
      } else {
        sb.append(c);
        pos++;
      }
    }
  }

  private void readEscape(StringBuilder sb, int stringStart) {
    int start = pos;
    pos++; // '\'
    if (pos >= json.length()) {
      throw fail(stringStart, "unterminated string", "");
    }
    char c = json.charAt(pos++);
    switch (c) {
      case '"', '\\', '/' -> sb.append(c);
      case 'b' -> sb.append('\b');
      case 'f' -> sb.append('\f');
      case 'n' -> sb.append('\n');
      case 'r' -> sb.append('\r');
      case 't' -> sb.append('\t');
      case 'u' -> {
        if (pos + 4 > json.length()) {
          throw fail(start, "malformed \\u escape", ", expected 4 hex digits");
        }
        int code = 0;
        for (int i = 0; i < 4; i++) {
          int digit = Character.digit(json.charAt(pos + i), 16);
          if (digit < 0) {
            throw fail(start, "malformed \\u escape", ", expected 4 hex digits");
          }
          code = code * 16 + digit;
        }
        pos += 4;
        sb.append((char) code); // surrogate pairs combine by themselves; lone ones pass through
      }
      default -> throw fail(start, "invalid escape '\\" + c + "'", "");
    }
  }

  private Double readNumber() {
    int start = pos;
    consume('-');
    if (consume('0')) {
      if (isDigit()) {
        throw fail(start, "number with a leading zero", "");
      }
    } else {
      requireDigits(start, "after '-'");
    }
    if (consume('.')) {
      requireDigits(start, "after '.'");
    }
    if (consume('e') || consume('E')) {
      if (!consume('+')) {
        consume('-');
      }
      requireDigits(start, "in the exponent");
    }
    String text = json.substring(start, pos);
    double value = Double.parseDouble(text);
    if (Double.isInfinite(value)) {
      throw fail(start, "number " + text + " out of range", "");
    }
    return value;
  }

  private void requireDigits(int start, String where) {
    if (!isDigit()) {
      throw fail(start, "malformed number", ", expected a digit " + where);
    }
    while (isDigit()) {
      pos++;
    }
  }

  private boolean isDigit() {
    return pos < json.length() && json.charAt(pos) >= '0' && json.charAt(pos) <= '9';
  }

  private Boolean readLiteral() {
    int start = pos;
    while (pos < json.length() && Character.isLetterOrDigit(json.charAt(pos))) {
      pos++;
    }
    String word = json.substring(start, pos);
    switch (word) {
      case "true" -> {
        return Boolean.TRUE;
      }
      case "false" -> {
        return Boolean.FALSE;
      }
      case "null" -> {
        return null;
      }
      default -> {
        if (word.length() > 1) { // e.g. NaN, Infinity, True
          throw fail(start, "unexpected word \"" + word + "\"", "");
        }
        pos = start;
        throw unexpected("a value");
      }
    }
  }

  private void enter() {
    if (++depth > MAX_DEPTH) {
      throw fail(pos, "nesting deeper than " + MAX_DEPTH + " levels", "");
    }
  }

  private boolean consume(char c) {
    if (pos < json.length() && json.charAt(pos) == c) {
      pos++;
      return true;
    }
    return false;
  }

  private void skipWhitespace() {
    while (pos < json.length()) {
      char c = json.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private IllegalArgumentException unexpected(String expected) {
    String found = pos >= json.length() ? "end of input" : describe(json.charAt(pos));
    return fail(pos, "unexpected " + found, ", expected " + expected);
  }

  /** "JSON: {problem} at offset {offset}{detail}". */
  private static IllegalArgumentException fail(int offset, String problem, String detail) {
    return new IllegalArgumentException("JSON: " + problem + " at offset " + offset + detail);
  }

  private static String describe(char c) {
    if (c < 0x20 || c == 0x7f) {
      return String.format("control character U+%04X", (int) c);
    }
    return "character '" + c + "'";
  }
}
