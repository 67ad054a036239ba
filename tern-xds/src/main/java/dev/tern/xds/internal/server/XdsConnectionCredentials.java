package dev.tern.xds.internal.server;

import dev.tern.Attributes;
import dev.tern.PerConnectionServerCredentials;
import dev.tern.ServerCredentials;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The transport-facing credentials of an xDS-enabled server: when a connection is accepted they
 * choose its filter chain, and so its TLS (the chain's DownstreamTlsContext, or the fallback); the
 * chain travels in the connection's attributes to {@link ChainTransportFilter}, which admits the
 * connection on that very chain. Thread-safe: the state is set once, before the server starts.
 */
final class XdsConnectionCredentials extends PerConnectionServerCredentials {
  /** The chain chosen when the connection was accepted. */
  static final Attributes.Key<ChainConfig> ACCEPTED_CHAIN =
      Attributes.Key.create("xds-accepted-filter-chain");

  private volatile ServingState state;

  XdsConnectionCredentials(ServerCredentials fallback) {
    super(fallback);
  }

  void bind(ServingState state) {
    this.state = state;
  }

  @Override
  public Selection select(SocketAddress local, SocketAddress remote) {
    ServingState now = state;
    if (now == null
        || !(local instanceof InetSocketAddress to)
        || !(remote instanceof InetSocketAddress from)
        || to.getAddress() == null
        || from.getAddress() == null) {
      return Selection.FALLBACK; // refused once ready, by the transport filter
    }
    ChainConfig chain = now.select(to.getAddress(), from.getAddress(), from.getPort());
    if (chain == null) {
      return Selection.FALLBACK; // not serving, or no chain: refused once ready
    }
    return new Selection(chain.tls, Attributes.newBuilder().set(ACCEPTED_CHAIN, chain).build());
  }

  @Override
  public String toString() {
    return "XdsServerCredentials[fallback=" + fallback() + "]";
  }
}
