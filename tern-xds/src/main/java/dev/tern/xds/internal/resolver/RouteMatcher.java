package dev.tern.xds.internal.resolver;

import dev.tern.Metadata;
import dev.tern.xds.XdsRouteConfig.HeaderMatcher;
import dev.tern.xds.XdsRouteConfig.PathMatcher;
import dev.tern.xds.XdsRouteConfig.RouteMatch;
import java.util.Iterator;
import java.util.Locale;

/**
 * Whether a call matches a route (gRFC A28): its path ({@code /service/method}), its request
 * headers, and the route's runtime fraction (drawn per call). Stateless; thread-safe.
 *
 * <p>Headers as A28 has them: a matcher on a {@code -bin} header, or on a pseudo-header ({@code
 * :path}, ...), sees the header as absent; {@code content-type} is always {@code application/grpc};
 * a header sent several times is matched as its values joined by {@code ,}. A header that is absent
 * matches only a {@code present} matcher (with {@code present: false}, or inverted); every other
 * matcher fails on it, inverted or not.
 */
public final class RouteMatcher {
  private RouteMatcher() {}

  /** Whether a call to {@code path} with {@code headers} takes the route of {@code match}. */
  public static boolean matches(RouteMatch match, String path, Metadata headers, XdsRandom random) {
    if (!matchesPath(match.path(), path)) {
      return false;
    }
    for (HeaderMatcher header : match.headers()) {
      if (!matchesHeader(header, headerValue(headers, header.name()))) {
        return false;
      }
    }
    Integer fraction = match.fractionPerMillion();
    return fraction == null || random.nextLong(1_000_000) < fraction;
  }

  static boolean matchesPath(PathMatcher matcher, String path) {
    switch (matcher.kind()) {
      case SAFE_REGEX:
        return matcher.regex().matcher(path).matches();
      case PATH:
        return matcher.caseSensitive()
            ? path.equals(matcher.value())
            : path.equalsIgnoreCase(matcher.value());
      case PREFIX:
        return matcher.caseSensitive()
            ? path.startsWith(matcher.value())
            : path.regionMatches(true, 0, matcher.value(), 0, matcher.value().length());
      default:
        throw new AssertionError(matcher.kind());
    }
  }

  /** {@code value} is the header's value as {@link #headerValue} gives it, null when absent. */
  static boolean matchesHeader(HeaderMatcher matcher, String value) {
    if (matcher.kind() == HeaderMatcher.Kind.PRESENT) {
      return ((value != null) == matcher.present()) != matcher.invert();
    }
    if (value == null) {
      return false;
    }
    boolean matched;
    String expected = matcher.value();
    String actual = value;
    if (matcher.ignoreCase()) {
      expected = expected.toLowerCase(Locale.ROOT);
      actual = actual.toLowerCase(Locale.ROOT);
    }
    switch (matcher.kind()) {
      case EXACT:
        matched = actual.equals(expected);
        break;
      case PREFIX:
        matched = actual.startsWith(expected);
        break;
      case SUFFIX:
        matched = actual.endsWith(expected);
        break;
      case CONTAINS:
        matched = actual.contains(expected);
        break;
      case SAFE_REGEX:
        matched = matcher.regex().matcher(value).matches();
        break;
      case RANGE:
        matched = inRange(value, matcher.rangeStart(), matcher.rangeEnd());
        break;
      default:
        throw new AssertionError(matcher.kind());
    }
    return matched != matcher.invert();
  }

  private static boolean inRange(String value, long start, long end) {
    long number;
    try {
      number = Long.parseLong(value);
    } catch (NumberFormatException e) {
      return false;
    }
    return number >= start && number < end;
  }

  /** The header's value for matching (A28), or null when the matcher must see it as absent. */
  static String headerValue(Metadata headers, String name) {
    if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
      return null;
    }
    if (name.equalsIgnoreCase("content-type")) {
      return "application/grpc";
    }
    Metadata.Key<String> key;
    try {
      key = Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
    } catch (IllegalArgumentException e) {
      return null; // a pseudo-header (":path") or a name no header can have
    }
    Iterable<String> values = headers.getAll(key);
    if (values == null) {
      return null;
    }
    Iterator<String> it = values.iterator();
    if (!it.hasNext()) {
      return null;
    }
    String first = it.next();
    if (!it.hasNext()) {
      return first;
    }
    StringBuilder joined = new StringBuilder(first);
    while (it.hasNext()) {
      joined.append(',').append(it.next());
    }
    return joined.toString();
  }
}
