package dev.tern.xds.internal.server;

import dev.tern.PerConnectionServerCredentials;
import dev.tern.Server;
import dev.tern.ServerCredentials;
import dev.tern.ServerInterceptor;
import dev.tern.ServerTransportFilter;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsClientPool;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What {@code dev.tern.xds.server.XdsServerBuilder} adds to a transport's server builder: a
 * transport filter that gives connections their filter chain (or refuses them), an interceptor that
 * routes calls by it, and the wrapper that watches the Listener from {@code start()}. One per
 * server; thread-safe.
 */
public final class XdsServing {
  private final ServingState state;
  private final Supplier<Bootstrap> bootstrap;
  private final XdsClientPool pool;

  /**
   * @param bootstrap the bootstrap, asked for at start
   * @param drainGraceNanos how long a drained connection's calls may go on before it is closed
   */
  public XdsServing(
      Supplier<Bootstrap> bootstrap,
      XdsClientPool pool,
      Runnable onServing,
      Consumer<Throwable> onNotServing,
      long drainGraceNanos) {
    this.bootstrap = bootstrap;
    this.pool = pool;
    this.state = new ServingState(onServing, onNotServing, drainGraceNanos);
  }

  /**
   * The credentials to build the transport's server with for {@code
   * dev.tern.xds.server.XdsServerCredentials}: each connection's TLS comes from its filter chain
   * (A29), else {@code fallback}. Give them to {@link #transportFilter}.
   */
  public static PerConnectionServerCredentials connectionCredentials(ServerCredentials fallback) {
    return new XdsConnectionCredentials(fallback);
  }

  /**
   * Chooses each connection's filter chain; add it to the transport's builder.
   *
   * @param credentials what {@link #connectionCredentials} returned, if the transport was built
   *     with them; else null (every connection then uses the transport's own security)
   */
  public ServerTransportFilter transportFilter(PerConnectionServerCredentials credentials) {
    if (credentials instanceof XdsConnectionCredentials xds) {
      xds.bind(state);
      return new ChainTransportFilter(state, true);
    }
    return new ChainTransportFilter(state, false);
  }

  /** Routes each call by its connection's chain; add it last, so that it runs first. */
  public ServerInterceptor interceptor() {
    return new RoutingInterceptor();
  }

  /** The xDS-enabled server around the transport's {@code built} server. */
  public Server wrap(Server built) {
    return new XdsServer(built, bootstrap, pool, state);
  }
}
