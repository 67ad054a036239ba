package dev.tern.services.binarylog;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A parsed {@code GRPC_BINARY_LOG_FILTER} string (gRFC A16): which methods are logged, and how much
 * of their headers and messages.
 *
 * <p>The filter is a comma-separated list of terms, each one of:
 *
 * <ul>
 *   <li>{@code *} - every method (only as the first term);
 *   <li>{@code <service>/*} - every method of a service;
 *   <li>{@code <service>/<method>} - one method;
 *   <li>{@code -<service>/<method>} - never this method.
 * </ul>
 *
 * The first three may end with limits: {@code {h}}, {@code {h:N}}, {@code {m}}, {@code {m:N}}, or
 * {@code {h[:N];m[:N]}}: {@code h} logs headers (up to N bytes of metadata), {@code m} logs
 * messages (up to N bytes each); naming only one logs nothing of the other; no limits logs both in
 * full. A method uses the most specific term that names it: exclusion, then method, service, and
 * {@code *}. The empty filter logs nothing.
 *
 * <p>Malformed filters and conflicting terms (a duplicate {@code *}, service or method, or a method
 * both logged and excluded) are refused with an {@link IllegalArgumentException} that gives the
 * offset and the text of the faulty term.
 *
 * <p>Immutable; thread-safe.
 */
final class BinaryLogFilter {
  /** How much of a call to log; {@link Integer#MAX_VALUE} means all. */
  record Limits(int maxHeaderBytes, int maxMessageBytes) {
    static final Limits ALL = new Limits(Integer.MAX_VALUE, Integer.MAX_VALUE);
  }

  private final Limits global;
  private final Map<String, Limits> services;
  private final Map<String, Limits> methods;
  private final Set<String> excluded;

  private BinaryLogFilter(
      Limits global,
      Map<String, Limits> services,
      Map<String, Limits> methods,
      Set<String> excluded) {
    this.global = global;
    this.services = Map.copyOf(services);
    this.methods = Map.copyOf(methods);
    this.excluded = Set.copyOf(excluded);
  }

  /**
   * The limits for {@code fullMethodName} ({@code "pkg.Service/Method"}), or null when the method
   * is not logged.
   */
  Limits limitsFor(String fullMethodName) {
    if (excluded.contains(fullMethodName)) {
      return null;
    }
    Limits limits = methods.get(fullMethodName);
    if (limits != null) {
      return limits;
    }
    int slash = fullMethodName.lastIndexOf('/');
    if (slash > 0) {
      limits = services.get(fullMethodName.substring(0, slash));
      if (limits != null) {
        return limits;
      }
    }
    return global;
  }

  /** Whether no method is logged (the empty filter, or only exclusions). */
  boolean logsNothing() {
    return global == null && services.isEmpty() && methods.isEmpty();
  }

  /**
   * Parses {@code filter}.
   *
   * @throws IllegalArgumentException if it is malformed or its terms conflict; the message gives
   *     the offset and text of the term and what is wrong with it
   */
  static BinaryLogFilter parse(String filter) {
    Objects.requireNonNull(filter, "filter");
    Limits global = null;
    Map<String, Limits> services = new HashMap<>();
    Map<String, Limits> methods = new HashMap<>();
    Set<String> excluded = new HashSet<>();
    if (filter.isEmpty()) {
      return new BinaryLogFilter(null, services, methods, excluded);
    }
    int start = 0;
    while (start <= filter.length()) {
      int comma = filter.indexOf(',', start);
      int end = comma < 0 ? filter.length() : comma;
      Term term = new Term(filter, start, filter.substring(start, end));
      if (term.text.isEmpty()) {
        throw term.error("empty term (two commas in a row, or a comma at an end)");
      }
      if (term.text.startsWith("-")) {
        String method = term.text.substring(1);
        if (method.indexOf('{') >= 0) {
          throw term.error("an exclusion takes no {h;m} limits");
        }
        if (method.equals("*") || method.endsWith("/*")) {
          throw term.error("an exclusion names one method; the * wildcard is not allowed");
        }
        checkMethodName(term, method, 1);
        if (!excluded.add(method)) {
          throw term.error("duplicate exclusion of " + method);
        }
        if (methods.containsKey(method)) {
          throw term.error(method + " is both logged and excluded");
        }
      } else {
        int brace = term.text.indexOf('{');
        String pattern = brace < 0 ? term.text : term.text.substring(0, brace);
        Limits limits = brace < 0 ? Limits.ALL : parseLimits(term, brace);
        if (pattern.equals("*")) {
          if (global != null) {
            throw term.error("duplicate '*'");
          }
          if (start != 0) {
            throw term.error("'*' must be the first term");
          }
          global = limits;
        } else if (pattern.endsWith("/*")) {
          String service = pattern.substring(0, pattern.length() - 2);
          checkName(term, service, 0, "service");
          if (services.put(service, limits) != null) {
            throw term.error("duplicate service " + service + "/*");
          }
        } else {
          checkMethodName(term, pattern, 0);
          if (methods.put(pattern, limits) != null) {
            throw term.error("duplicate method " + pattern);
          }
          if (excluded.contains(pattern)) {
            throw term.error(pattern + " is both logged and excluded");
          }
        }
      }
      if (comma < 0) {
        break;
      }
      start = comma + 1;
    }
    return new BinaryLogFilter(global, services, methods, excluded);
  }

  /** Checks {@code <service>/<method>}, found at {@code offset} within the term. */
  private static void checkMethodName(Term term, String name, int offset) {
    int slash = name.indexOf('/');
    if (slash < 0) {
      throw term.error("expected '*', '<service>/*' or '<service>/<method>'");
    }
    String service = name.substring(0, slash);
    if (service.equals("*")) {
      throw term.error("a method of every service ('*/<method>') is not supported");
    }
    checkName(term, service, offset, "service");
    checkName(term, name.substring(slash + 1), offset + slash + 1, "method");
  }

  private static void checkName(Term term, String name, int offset, String what) {
    if (name.isEmpty()) {
      throw term.error("empty " + what + " name at offset " + (term.offset + offset));
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '*' || c == '/' || c == '{' || c == '}' || c == ';' || c <= ' ' || c >= 0x7f) {
        throw term.error(
            "unexpected '"
                + c
                + "' in the "
                + what
                + " name at offset "
                + (term.offset + offset + i));
      }
    }
  }

  /** Parses the {@code {...}} that starts at {@code brace} within the term. */
  private static Limits parseLimits(Term term, int brace) {
    String text = term.text;
    if (!text.endsWith("}") || text.indexOf('}') != text.length() - 1) {
      throw term.error("limits must be one {...} at the end of the term");
    }
    String body = text.substring(brace + 1, text.length() - 1);
    int bodyOffset = brace + 1;
    if (body.isEmpty()) {
      throw term.error("empty {} limits; expected {h}, {m} or {h;m}, each with an optional :N");
    }
    int semicolon = body.indexOf(';');
    if (semicolon < 0) {
      if (body.charAt(0) == 'h') {
        return new Limits(parseLimit(term, body, bodyOffset, 'h'), 0);
      }
      if (body.charAt(0) == 'm') {
        return new Limits(0, parseLimit(term, body, bodyOffset, 'm'));
      }
      throw term.error(
          "expected 'h' or 'm' at offset "
              + (term.offset + bodyOffset)
              + "; limits are {h}, {m} or {h;m}, each with an optional :N");
    }
    int headers = parseLimit(term, body.substring(0, semicolon), bodyOffset, 'h');
    int messages = parseLimit(term, body.substring(semicolon + 1), bodyOffset + semicolon + 1, 'm');
    return new Limits(headers, messages);
  }

  /** Parses {@code h}, {@code h:N} (or the same with {@code m}); no N means all. */
  private static int parseLimit(Term term, String part, int offset, char kind) {
    int at = term.offset + offset;
    if (part.isEmpty() || part.charAt(0) != kind) {
      throw term.error(
          "expected '"
              + kind
              + "' at offset "
              + at
              + (kind == 'm' && part.startsWith("h") ? " (h comes first, once)" : "")
              + "; limits are {h}, {m} or {h;m}, each with an optional :N");
    }
    if (part.length() == 1) {
      return Integer.MAX_VALUE;
    }
    if (part.charAt(1) != ':' || part.length() == 2) {
      throw term.error("expected '" + kind + "' or '" + kind + ":<bytes>' at offset " + at);
    }
    String digits = part.substring(2);
    for (int i = 0; i < digits.length(); i++) {
      if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
        throw term.error(
            "expected a number of bytes after '" + kind + ":' at offset " + (at + 2 + i));
      }
    }
    try {
      return Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      throw term.error("the " + kind + " limit " + digits + " is too large (most: 2147483647)");
    }
  }

  /** One comma-separated term and where it starts, for error messages. */
  private static final class Term {
    final String filter;
    final int offset;
    final String text;

    Term(String filter, int offset, String text) {
      this.filter = filter;
      this.offset = offset;
      this.text = text;
    }

    IllegalArgumentException error(String problem) {
      return new IllegalArgumentException(
          "Invalid binary log filter \""
              + filter
              + "\": term \""
              + text
              + "\" at offset "
              + offset
              + ": "
              + problem);
    }
  }
}
