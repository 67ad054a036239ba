package dev.tern.netty;

import java.util.Locale;

/**
 * The {@code h3} target scheme ({@link NettyChannelBuilder#forTarget}): a DNS target whose channel
 * calls over HTTP/3 from the start. Stateless.
 */
final class Http3Target {
  /** The scheme, as a user writes it; schemes are case-insensitive (RFC 3986 section 3.1). */
  static final String SCHEME = "h3";

  private Http3Target() {}

  /**
   * The DNS target an {@code h3} target names, or null if {@code target} is not one: {@code
   * h3://host:port} and {@code h3:///host:port} become {@code dns:///host:port}, {@code
   * h3://dns-server/host:port} becomes {@code dns://dns-server/host:port}, and {@code h3:host:port}
   * becomes {@code dns:host:port} (which the DNS resolver judges).
   */
  static String toDnsTarget(String target) {
    int colon = target.indexOf(':');
    if (colon != SCHEME.length()
        || !target.substring(0, colon).toLowerCase(Locale.ROOT).equals(SCHEME)) {
      return null;
    }
    String rest = target.substring(colon + 1);
    if (rest.startsWith("//") && rest.indexOf('/', 2) < 0) {
      // h3://host:port, the URL's form: the authority is the server, not a DNS server.
      return "dns:///" + rest.substring(2);
    }
    return "dns:" + rest;
  }
}
