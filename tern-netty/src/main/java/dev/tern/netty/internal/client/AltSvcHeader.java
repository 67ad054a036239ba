package dev.tern.netty.internal.client;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses the value of an {@code alt-svc} response field (RFC 7838 section 3): either {@code clear}
 * or a comma-separated list of {@code protocol-id="[host]:port"} alternatives, each with {@code
 * ;name=value} parameters, of which {@code ma} (max-age in seconds, 24 hours when absent) is kept.
 * A protocol-id is compared as sent (no percent-decoding: {@code h3} has nothing to decode). No
 * I/O, no state; thread-safe.
 */
public final class AltSvcHeader {
  /** RFC 7838 section 3.1: an alternative without {@code ma} is fresh for 24 hours. */
  static final long DEFAULT_MAX_AGE_SECONDS = 86_400;

  /** One alternative: {@code host} is empty when the field names none (the origin's host). */
  public record Alternative(String protocol, String host, int port, long maxAgeSeconds) {}

  /**
   * A parsed field: {@code clear} (every alternative of the origin is gone) or the alternatives, in
   * the order sent (the server's preference).
   */
  public record Value(boolean clear, List<Alternative> alternatives) {}

  private static final Value CLEAR = new Value(true, List.of());

  private final String text;
  private int pos;

  private AltSvcHeader(String text) {
    this.text = text;
  }

  /**
   * Parses {@code value}.
   *
   * @throws IllegalArgumentException if it does not follow RFC 7838's grammar (the message says
   *     where)
   */
  public static Value parse(String value) {
    if (value.strip().equals("clear")) {
      return CLEAR;
    }
    return new AltSvcHeader(value).alternatives();
  }

  private Value alternatives() {
    List<Alternative> out = new ArrayList<>(2);
    while (true) {
      skipSpace();
      if (pos < text.length() && text.charAt(pos) == ',') {
        pos++; // an empty list element, which RFC 9110's list syntax allows
        continue;
      }
      if (pos == text.length()) {
        break;
      }
      out.add(alternative());
      skipSpace();
      if (pos < text.length()) {
        expect(',');
      }
    }
    if (out.isEmpty()) {
      throw error("no alternative");
    }
    return new Value(false, List.copyOf(out));
  }

  private Alternative alternative() {
    String protocol = token();
    expect('=');
    String authority = quoted();
    int colon = authority.lastIndexOf(':');
    if (colon < 0 || (authority.indexOf(']') > colon)) {
      throw error("alt-authority '" + authority + "' has no port");
    }
    String host = authority.substring(0, colon);
    int port = port(authority.substring(colon + 1));
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    long maxAge = DEFAULT_MAX_AGE_SECONDS;
    while (true) {
      skipSpace();
      if (pos >= text.length() || text.charAt(pos) != ';') {
        break;
      }
      pos++;
      skipSpace();
      String name = token();
      expect('=');
      String value = pos < text.length() && text.charAt(pos) == '"' ? quoted() : token();
      if (name.equalsIgnoreCase("ma")) {
        maxAge = deltaSeconds(value);
      }
    }
    return new Alternative(protocol, host, port, maxAge);
  }

  private int port(String digits) {
    if (digits.isEmpty() || digits.length() > 5 || !digits.chars().allMatch(AltSvcHeader::digit)) {
      throw error("port '" + digits + "' is not a number");
    }
    int port = Integer.parseInt(digits);
    if (port < 1 || port > 65535) {
      throw error("port " + port + " is not in 1..65535");
    }
    return port;
  }

  private long deltaSeconds(String digits) {
    if (digits.isEmpty() || !digits.chars().allMatch(AltSvcHeader::digit)) {
      throw error("ma '" + digits + "' is not a number of seconds");
    }
    // RFC 9111 section 1.2.2: a delta too large to hold is taken as the largest one held.
    return digits.length() > 12 ? Long.MAX_VALUE / 1_000_000_000L : Long.parseLong(digits);
  }

  private String token() {
    int start = pos;
    while (pos < text.length() && tchar(text.charAt(pos))) {
      pos++;
    }
    if (pos == start) {
      throw error("a token expected");
    }
    return text.substring(start, pos);
  }

  private String quoted() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (pos < text.length()) {
      char c = text.charAt(pos++);
      if (c == '"') {
        return out.toString();
      }
      if (c == '\\') {
        if (pos == text.length()) {
          break;
        }
        c = text.charAt(pos++);
      }
      if (c < 0x20 && c != '\t' || c == 0x7f || c > 0xff) {
        throw error("a control character in a quoted string");
      }
      out.append(c);
    }
    throw error("an unterminated quoted string");
  }

  private void expect(char c) {
    if (pos >= text.length() || text.charAt(pos) != c) {
      throw error("'" + c + "' expected");
    }
    pos++;
  }

  private void skipSpace() {
    while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t')) {
      pos++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("malformed alt-svc at index " + pos + ": " + what);
  }

  private static boolean digit(int c) {
    return c >= '0' && c <= '9';
  }

  /** RFC 9110's tchar. */
  private static boolean tchar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }
}
