package dev.tern.xds.internal.rbac;

import dev.tern.Metadata;
import java.util.Base64;
import java.util.Iterator;
import java.util.Set;

/**
 * An RBAC {@code header} matcher ({@code envoy.config.route.v3.HeaderMatcher}) on a call's headers
 * as A41 defines them: {@code :path} is the call's path, {@code :method} is {@code POST}, {@code
 * :authority} and {@code host} are both the call's authority; hop-by-hop headers ({@code te},
 * {@code connection}, ...) and other pseudo-headers are never present; a header sent several times
 * is its values joined by {@code ,}, a binary ({@code -bin}) one in standard base64. A header that
 * is absent matches only a {@code present_match} (or, with {@code treat_missing_header_as_empty},
 * is matched as ""). Immutable.
 *
 * @param name the lower-case header name
 * @param value the value matcher, or null for a presence or range matcher
 * @param present for a presence matcher: whether the header must be present; else null
 * @param rangeStart for a range matcher: the smallest value; else 0
 * @param rangeEnd for a range matcher: one more than the largest value; else 0 (with {@code value}
 *     and {@code present} null, a range matcher)
 */
record HeaderMatch(
    String name,
    StringMatch value,
    Boolean present,
    long rangeStart,
    long rangeEnd,
    boolean invert,
    boolean missingAsEmpty)
    implements RbacMatcher {
  private static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-authenticate",
          "proxy-authorization",
          "proxy-connection",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade");

  @Override
  public boolean matches(RbacRequest request) {
    String actual = valueOf(name, request);
    if (actual == null && missingAsEmpty) {
      actual = "";
    }
    if (present != null) {
      return ((actual != null) == present) != invert;
    }
    if (actual == null) {
      return false;
    }
    boolean matched;
    if (value != null) {
      matched = value.matches(actual);
    } else {
      try {
        long number = Long.parseLong(actual);
        matched = number >= rangeStart && number < rangeEnd;
      } catch (NumberFormatException e) {
        matched = false;
      }
    }
    return matched != invert;
  }

  /** The header's value as A41 has it, or null when it is absent. */
  static String valueOf(String name, RbacRequest request) {
    switch (name) {
      case ":path":
        return request.path();
      case ":method":
        return "POST";
      case ":authority":
      case "host":
        return request.authority();
      default:
        break;
    }
    if (name.startsWith(":") || HOP_BY_HOP.contains(name)) {
      return null;
    }
    if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
      Iterable<byte[]> values =
          request.headers().getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER));
      if (values == null) {
        return null;
      }
      StringBuilder joined = new StringBuilder();
      for (byte[] value : values) {
        joined
            .append(joined.length() > 0 ? "," : "")
            .append(Base64.getEncoder().encodeToString(value));
      }
      return joined.toString();
    }
    Iterable<String> values =
        request.headers().getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
    if (values == null) {
      return null;
    }
    Iterator<String> it = values.iterator();
    StringBuilder joined = new StringBuilder(it.next());
    while (it.hasNext()) {
      joined.append(',').append(it.next());
    }
    return joined.toString();
  }
}
