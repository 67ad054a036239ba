package dev.tern;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * Decides whether a connection to a server goes through an HTTP CONNECT proxy (gRFC A1), and
 * through which. A channel's DNS resolver asks it for the target named by the channel ({@code
 * host:port}, not yet resolved) before looking the name up: when it answers with a proxy, the name
 * is not looked up here (the proxy resolves it, as in a network where only the proxy can) and the
 * channel connects to the proxy, which it asks to open a tunnel to the target; TLS and HTTP/2 then
 * run through the tunnel as on a direct connection, with the target's name for SNI and the
 * certificate check. Other resolvers may ask it too ({@link NameResolver.Args#getProxyDetector()}).
 *
 * <p>Set one with {@link ManagedChannelBuilder#proxyDetector}; without one, a channel uses the
 * default detector, which honours the environment ({@code HTTPS_PROXY}, {@code NO_PROXY}) and then
 * the JVM's {@link java.net.ProxySelector} ({@code https.proxyHost}, {@code https.proxyPort},
 * {@code http.nonProxyHosts}), never for loopback targets (docs/channels.md, "Proxies"). {@link
 * #none()} turns proxies off.
 *
 * <p>Implementations must be thread-safe. {@link #proxyFor} runs on the channel's offload executor
 * and may block (for a look-up of the proxy's own name, or a password prompt).
 */
@FunctionalInterface
public interface ProxyDetector {
  /**
   * The proxy to reach {@code targetServerAddress} through, or null to connect directly.
   *
   * @param targetServerAddress the server to reach: for a DNS target, an unresolved {@link
   *     java.net.InetSocketAddress} of the target's host name (or IP literal) and port
   * @throws IOException when the proxy settings cannot be used (the channel's resolution then fails
   *     UNAVAILABLE with the exception's message)
   */
  HttpConnectProxiedSocketAddress proxyFor(SocketAddress targetServerAddress) throws IOException;

  /** A detector that never proxies: every connection is direct. */
  static ProxyDetector none() {
    return NoProxyDetector.INSTANCE;
  }
}
