package dev.tern.xds.internal.server;

import dev.tern.Attributes;
import dev.tern.Grpc;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Gives each new connection its filter chain, through tern-core's per-connection seam: the chain
 * goes into the connection's attributes under {@link #CHAIN} for the {@link RoutingInterceptor}.
 * While the server is not serving (no Listener yet, or it went away) a connection is closed as soon
 * as it is accepted, before the server writes a byte (A36: no TLS ServerHello, no HTTP/2 SETTINGS);
 * one that no chain matches is refused once ready, with a status naming why. Thread-safe (the
 * {@link ServingState} is).
 */
final class ChainTransportFilter extends ServerTransportFilter {
  /** The connection's chain. */
  static final Attributes.Key<ChainConfig> CHAIN = Attributes.Key.create("xds-filter-chain");

  private final ServingState state;
  private final boolean chainRequired;

  /**
   * @param chainRequired whether connections come with the chain chosen when they were accepted
   *     ({@link XdsConnectionCredentials}), which they must then be served on
   */
  ChainTransportFilter(ServingState state, boolean chainRequired) {
    this.state = state;
    this.chainRequired = chainRequired;
  }

  @Override
  public boolean acceptConnection(SocketAddress local, SocketAddress remote) {
    return state.isServing();
  }

  @Override
  public Attributes transportReady(Attributes attrs, Connection connection) {
    SocketAddress local = attrs.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR);
    SocketAddress remote = attrs.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    if (!(local instanceof InetSocketAddress to)
        || !(remote instanceof InetSocketAddress from)
        || to.getAddress() == null
        || from.getAddress() == null) {
      connection.refuse(
          Status.UNAVAILABLE.withDescription(
              "xDS server: a connection without IP addresses (" + remote + " to " + local + ")"));
      return attrs;
    }
    ChainConfig chain =
        state.admit(
            connection,
            to.getAddress(),
            from.getAddress(),
            from.getPort(),
            attrs.get(XdsConnectionCredentials.ACCEPTED_CHAIN),
            chainRequired);
    if (chain == null) {
      return attrs; // refused
    }
    return attrs.toBuilder().set(CHAIN, chain).set(CONNECTION, connection).build();
  }

  @Override
  public void transportTerminated(Attributes attrs) {
    ChainConfig chain = attrs.get(CHAIN);
    Connection connection = attrs.get(CONNECTION);
    if (chain != null && connection != null) {
      state.release(chain, connection);
    }
  }

  /** The connection's handle, to forget it when it is gone. */
  private static final Attributes.Key<Connection> CONNECTION =
      Attributes.Key.create("xds-connection");
}
