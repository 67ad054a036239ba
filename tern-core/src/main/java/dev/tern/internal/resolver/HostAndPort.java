package dev.tern.internal.resolver;

import java.util.Objects;

/**
 * A host and port parsed from a target: {@code host}, {@code host:port}, {@code [v6]} or {@code
 * [v6]:port}. Immutable.
 *
 * @param host the host, without brackets
 * @param port the port
 * @param authority the host and port as the target spelled them (the calls' default authority)
 */
public record HostAndPort(String host, int port, String authority) {
  public HostAndPort {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(authority, "authority");
  }

  /**
   * Parses {@code text}; a missing port means {@code defaultPort}.
   *
   * @param target the whole target, for the error message
   * @throws IllegalArgumentException naming the target and what is wrong with it
   */
  public static HostAndPort parse(String text, int defaultPort, String target) {
    if (text.isEmpty()) {
      throw new IllegalArgumentException("target '" + target + "' names no host");
    }
    String host;
    String portText = null;
    if (text.startsWith("[")) {
      int close = text.indexOf(']');
      if (close < 0) {
        throw new IllegalArgumentException(
            "target '" + target + "' has an IPv6 address without its closing ']'");
      }
      host = text.substring(1, close);
      String rest = text.substring(close + 1);
      if (!rest.isEmpty()) {
        if (!rest.startsWith(":")) {
          throw new IllegalArgumentException(
              "target '" + target + "' has '" + rest + "' after the IPv6 address; expected :port");
        }
        portText = rest.substring(1);
      }
      if (host.isEmpty() || host.indexOf(':') < 0) {
        throw new IllegalArgumentException(
            "target '" + target + "' has '[" + host + "]', which is not an IPv6 address");
      }
    } else {
      int colon = text.indexOf(':');
      if (colon >= 0 && text.indexOf(':', colon + 1) >= 0) {
        throw new IllegalArgumentException(
            "target '" + target + "' has an IPv6 address without brackets; write [" + text + "]");
      }
      host = colon < 0 ? text : text.substring(0, colon);
      portText = colon < 0 ? null : text.substring(colon + 1);
      if (host.isEmpty()) {
        throw new IllegalArgumentException("target '" + target + "' names no host");
      }
      for (int i = 0; i < host.length(); i++) {
        char c = host.charAt(i);
        if (!(Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_')) {
          throw new IllegalArgumentException(
              "target '" + target + "' has the character '" + c + "' in its host '" + host + "'");
        }
      }
    }
    int port = defaultPort;
    if (portText != null) {
      port = parsePort(portText, target);
    }
    return new HostAndPort(host, port, text);
  }

  private static int parsePort(String text, String target) {
    if (text.isEmpty() || text.length() > 5) {
      throw new IllegalArgumentException(
          "target '" + target + "' has port '" + text + "', not a number in 0..65535");
    }
    int port = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        throw new IllegalArgumentException(
            "target '" + target + "' has port '" + text + "', not a number in 0..65535");
      }
      port = port * 10 + (c - '0');
    }
    if (port > 65535) {
      throw new IllegalArgumentException(
          "target '" + target + "' has port " + port + ", beyond 65535");
    }
    return port;
  }
}
