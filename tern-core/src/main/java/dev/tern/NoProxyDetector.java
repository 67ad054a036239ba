package dev.tern;

import java.net.SocketAddress;

/** {@link ProxyDetector#none()}. Stateless; thread-safe. */
enum NoProxyDetector implements ProxyDetector {
  INSTANCE;

  @Override
  public HttpConnectProxiedSocketAddress proxyFor(SocketAddress targetServerAddress) {
    return null;
  }

  @Override
  public String toString() {
    return "ProxyDetector.none()";
  }
}
