package dev.tern.netty.internal.client;

/**
 * The host and port of an authority ({@code host:port}, {@code [v6]:port} or a bare host), for SNI
 * and the server certificate's check; the port is -1 when the authority names none (or not a
 * number). Immutable; thread-safe.
 */
public record HostAndPort(String host, int port) {
  /** Splits {@code authority}. */
  public static HostAndPort ofAuthority(String authority) {
    int colon = authority.lastIndexOf(':');
    String host = authority;
    int port = -1;
    if (colon > 0 && authority.indexOf(']', colon) < 0) {
      host = authority.substring(0, colon);
      try {
        port = Integer.parseInt(authority.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new HostAndPort(host, port);
  }
}
