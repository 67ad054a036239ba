package dev.tern.authz;

/**
 * One string pattern of a policy, compiled: {@code "abc"} matches exactly, {@code "abc*"} any value
 * starting with {@code abc}, {@code "*abc"} any value ending with it, and {@code "*"} any non-empty
 * value. A {@code '*'} anywhere else is refused when the policy is read, so a pattern never means
 * something its author did not write.
 *
 * <p>Immutable; thread-safe.
 */
final class ValueMatcher {
  private enum Kind {
    EXACT,
    PREFIX,
    SUFFIX,
    PRESENCE
  }

  private final Kind kind;

  /** The pattern without its {@code '*'}. */
  private final String text;

  private ValueMatcher(Kind kind, String text) {
    this.kind = kind;
    this.text = text;
  }

  /**
   * Compiles {@code pattern}.
   *
   * @throws IllegalArgumentException (without a field path; the caller adds it) if {@code '*'}
   *     appears other than alone, first or last
   */
  static ValueMatcher compile(String pattern) {
    if (pattern.equals("*")) {
      return new ValueMatcher(Kind.PRESENCE, "");
    }
    int star = pattern.indexOf('*');
    if (star < 0) {
      return new ValueMatcher(Kind.EXACT, pattern);
    }
    if (pattern.indexOf('*', star + 1) < 0) {
      if (star == pattern.length() - 1) {
        return new ValueMatcher(Kind.PREFIX, pattern.substring(0, star));
      }
      if (star == 0) {
        return new ValueMatcher(Kind.SUFFIX, pattern.substring(1));
      }
    }
    throw new IllegalArgumentException(
        "'"
            + pattern
            + "': '*' may only stand alone (any non-empty value), at the end (prefix match) or at"
            + " the start (suffix match)");
  }

  /** Whether this is an exact or prefix pattern, so the start of the value is fixed. */
  boolean fixesStart() {
    return kind == Kind.EXACT || kind == Kind.PREFIX;
  }

  /** The literal part of the pattern (the whole of it for an exact match). */
  String text() {
    return text;
  }

  /** Whether {@code value} matches. */
  boolean matches(String value) {
    switch (kind) {
      case EXACT:
        return value.equals(text);
      case PREFIX:
        return value.startsWith(text);
      case SUFFIX:
        return value.endsWith(text);
      default:
        return !value.isEmpty();
    }
  }

  /**
   * Whether the path {@code "/" + fullMethodName} matches, without building that string: a call's
   * path is its full method name after a slash.
   */
  boolean matchesPath(String fullMethodName) {
    int length = fullMethodName.length();
    switch (kind) {
      case EXACT:
        return text.length() == length + 1
            && text.charAt(0) == '/'
            && text.regionMatches(1, fullMethodName, 0, length);
      case PREFIX:
        return text.isEmpty()
            || (text.charAt(0) == '/'
                && fullMethodName.regionMatches(0, text, 1, text.length() - 1));
      case SUFFIX:
        if (text.length() <= length) {
          return fullMethodName.endsWith(text);
        }
        return text.length() == length + 1
            && text.charAt(0) == '/'
            && text.regionMatches(1, fullMethodName, 0, length);
      default:
        return true;
    }
  }

  @Override
  public String toString() {
    switch (kind) {
      case EXACT:
        return text;
      case PREFIX:
        return text + "*";
      case SUFFIX:
        return "*" + text;
      default:
        return "*";
    }
  }
}
