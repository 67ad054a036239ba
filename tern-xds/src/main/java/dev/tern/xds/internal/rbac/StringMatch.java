package dev.tern.xds.internal.rbac;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An {@code envoy.type.matcher.v3.StringMatcher}: exact, prefix, suffix, contains (each optionally
 * ignoring case) or a whole-string regex. Immutable; equal by value (a re-sent policy equals the
 * one before it, so its filter chain's connections are not drained).
 */
record StringMatch(Kind kind, String value, Pattern regex, boolean ignoreCase) {
  enum Kind {
    EXACT,
    PREFIX,
    SUFFIX,
    CONTAINS,
    REGEX
  }

  /** Equal when kind, value and case rule are ({@link Pattern} has no equality of its own). */
  @Override
  public boolean equals(Object o) {
    return o instanceof StringMatch m
        && m.kind == kind
        && m.value.equals(value)
        && m.ignoreCase == ignoreCase;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, value, ignoreCase);
  }

  boolean matches(String actual) {
    if (kind == Kind.REGEX) {
      return regex.matcher(actual).matches();
    }
    String expected = value;
    if (ignoreCase) {
      expected = expected.toLowerCase(Locale.ROOT);
      actual = actual.toLowerCase(Locale.ROOT);
    }
    return switch (kind) {
      case EXACT -> actual.equals(expected);
      case PREFIX -> actual.startsWith(expected);
      case SUFFIX -> actual.endsWith(expected);
      case CONTAINS -> actual.contains(expected);
      case REGEX -> throw new AssertionError();
    };
  }
}
