package dev.tern.xds.internal.server;

import dev.tern.Server;
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

  /** Chooses each connection's filter chain; add it to the transport's builder. */
  public ServerTransportFilter transportFilter() {
    return new ChainTransportFilter(state);
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
