package dev.tern.compiler;

import java.util.Locale;
import java.util.Set;

/** Java naming rules: protoc's camel-casing, reserved words, and Javadoc-safe comment text. */
final class JavaNames {
  private JavaNames() {}

  /** Keywords, literals and restricted identifiers that cannot be declared or called plainly. */
  private static final Set<String> RESERVED =
      Set.of(
          ("abstract assert boolean break byte case catch char class const continue default do"
                  + " double else enum extends final finally float for goto if implements import"
                  + " instanceof int interface long native new package private protected public"
                  + " return short static strictfp super switch synchronized this throw throws"
                  + " transient try void volatile while true false null yield _")
              .split(" "));

  /**
   * Names of {@link Object}'s methods. Overloading them is legal Java, but a stub method {@code
   * toString(request)} beside {@code toString()} misleads readers, so these are mangled too.
   */
  private static final Set<String> OBJECT_METHODS =
      Set.of("getClass hashCode equals toString clone finalize notify notifyAll wait".split(" "));

  /**
   * protoc's underscore-to-camel-case conversion: underscores (and other non-alphanumerics) are
   * dropped and the next letter upper-cased, as is a letter after a digit; the first letter is
   * upper-cased if {@code capitalizeFirst}, else lower-cased.
   */
  static String camelCase(String input, boolean capitalizeFirst) {
    StringBuilder result = new StringBuilder(input.length());
    boolean capitalizeNext = capitalizeFirst;
    for (int i = 0; i < input.length(); i++) {
      char c = input.charAt(i);
      if (c >= 'a' && c <= 'z') {
        result.append(capitalizeNext ? (char) (c - 'a' + 'A') : c);
        capitalizeNext = false;
      } else if (c >= 'A' && c <= 'Z') {
        result.append(i == 0 && !capitalizeFirst ? (char) (c - 'A' + 'a') : c);
        capitalizeNext = false;
      } else if (c >= '0' && c <= '9') {
        result.append(c);
        capitalizeNext = true;
      } else {
        capitalizeNext = true;
      }
    }
    return result.toString();
  }

  /** Whether {@code name} must be mangled to serve as a generated method name. */
  static boolean needsMangling(String name) {
    return RESERVED.contains(name) || OBJECT_METHODS.contains(name);
  }

  /** {@code sayHello} -> {@code SayHello}. */
  static String capitalize(String name) {
    return name.isEmpty() ? name : Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }

  /** {@code sayHello} -> {@code SAY_HELLO}; {@code getHTTPStatus} -> {@code GET_HTTPSTATUS}. */
  static String upperSnakeCase(String name) {
    StringBuilder result = new StringBuilder(name.length() + 8);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (i > 0 && Character.isUpperCase(c) && Character.isLowerCase(name.charAt(i - 1))) {
        result.append('_');
      }
      result.append(c);
    }
    return result.toString().toUpperCase(Locale.ROOT);
  }

  /**
   * Makes comment text safe inside a Javadoc {@code <pre>} block: HTML specials become entities,
   * {@code @} cannot start a tag, {@code *}{@code /} cannot end the comment, and a backslash cannot
   * start a Unicode escape (javac decodes those before it even sees the comment).
   */
  static String escapeJavadoc(String text) {
    StringBuilder result = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&':
          result.append("&amp;");
          break;
        case '<':
          result.append("&lt;");
          break;
        case '>':
          result.append("&gt;");
          break;
        case '@':
          result.append("&#64;");
          break;
        case '\\':
          result.append("&#92;");
          break;
        case '/':
          // Only "*/" is dangerous, but escaping every slash after '*' is all it takes.
          result.append(i > 0 && text.charAt(i - 1) == '*' ? "&#47;" : "/");
          break;
        default:
          result.append(c);
      }
    }
    return result.toString();
  }

  /** A Java string literal for {@code value}, quotes included. */
  static String stringLiteral(String value) {
    StringBuilder result = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        result.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7E) {
        result.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        result.append(c);
      }
    }
    return result.append('"').toString();
  }
}
