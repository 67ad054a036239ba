package dev.tern.xds.server;

import dev.tern.ForwardingServerBuilder;
import dev.tern.Grpc;
import dev.tern.PerConnectionServerCredentials;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.ServerCredentials;
import dev.tern.ServerProvider;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsClientPool;
import dev.tern.xds.internal.server.XdsServing;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Builds an xDS-enabled server (gRFC A36): a server on a port whose filter chains and routes come
 * from the control plane. At {@link Server#start()} it binds the port and watches the Listener the
 * bootstrap's {@code server_listener_resource_name_template} names for it ({@code %s} replaced by
 * {@code 0.0.0.0:port}); until that Listener arrives, and whenever it goes away, the server is NOT
 * SERVING: it closes each new connection as soon as it is accepted, writing nothing (A36: no TLS
 * ServerHello, no HTTP/2 SETTINGS, so clients fail over at once), and drains open ones. Otherwise
 * each connection gets the filter chain that matches it, and each call the route of that chain's
 * HttpConnectionManager (calls on routes that are not {@code non_forwarding_action}, or on none,
 * fail UNAVAILABLE).
 *
 * <pre>{@code
 * Server server =
 *     XdsServerBuilder.forPort(port, XdsServerCredentials.create(InsecureServerCredentials.create()))
 *         .xdsServingStatusListener(listener)
 *         .addService(service)
 *         .build()
 *         .start();
 * }</pre>
 *
 * <p>The transport is the highest-priority one installed ({@link Grpc#newServerBuilderForPort}).
 * Not thread-safe (a builder).
 */
public final class XdsServerBuilder extends ForwardingServerBuilder<XdsServerBuilder> {
  private static final Logger logger = Logger.getLogger(XdsServerBuilder.class.getName());

  private final ServerBuilder<?> delegate;
  private final PerConnectionServerCredentials connectionCredentials;
  private XdsServingStatusListener statusListener = new LoggingListener();
  private Supplier<Bootstrap> bootstrap = Bootstrap::fromEnvironment;
  private XdsClientPool pool = XdsClientPool.shared();
  private long drainGraceNanos = TimeUnit.MINUTES.toNanos(10);

  private XdsServerBuilder(
      ServerBuilder<?> delegate, PerConnectionServerCredentials connectionCredentials) {
    this.delegate = delegate;
    this.connectionCredentials = connectionCredentials;
  }

  /**
   * A builder for a server on {@code port} (0: one the OS chooses) of every local address.
   *
   * @param credentials {@link XdsServerCredentials}, or other server credentials used as they are
   */
  public static XdsServerBuilder forPort(int port, ServerCredentials credentials) {
    return create(credentials, transport -> Grpc.newServerBuilderForPort(port, transport));
  }

  /**
   * A builder for a server bound to {@code address} alone (an {@link java.net.InetSocketAddress} of
   * one local IP and a port, 0: one the OS chooses), from the highest-priority transport that binds
   * such addresses ({@link ServerProvider#select(SocketAddress, ServerCredentials)}). The
   * Listener's name then has that IP in it.
   *
   * @param credentials {@link XdsServerCredentials}, or other server credentials used as they are
   */
  public static XdsServerBuilder forAddress(SocketAddress address, ServerCredentials credentials) {
    Objects.requireNonNull(address, "address");
    return create(credentials, transport -> ServerProvider.select(address, transport));
  }

  private static XdsServerBuilder create(
      ServerCredentials credentials, Function<ServerCredentials, ServerBuilder<?>> transport) {
    Objects.requireNonNull(credentials, "credentials");
    if (credentials instanceof XdsServerCredentials xds) {
      PerConnectionServerCredentials perConnection =
          XdsServing.connectionCredentials(xds.fallback());
      return new XdsServerBuilder(transport.apply(perConnection), perConnection);
    }
    return new XdsServerBuilder(transport.apply(credentials), null);
  }

  /**
   * A builder around a transport's server builder the caller configured: to set transport options.
   * The Listener's name has the address it binds in it. Its connections have the transport's own
   * security: {@link XdsServerCredentials} cannot reach it, so a filter chain with TLS refuses them
   * (use {@link #forPort} or {@link #forAddress} for TLS from the control plane). The builder must
   * not be built elsewhere.
   */
  public static XdsServerBuilder forServerBuilder(ServerBuilder<?> transportBuilder) {
    return new XdsServerBuilder(Objects.requireNonNull(transportBuilder, "transportBuilder"), null);
  }

  @Override
  protected ServerBuilder<?> delegate() {
    return delegate;
  }

  /** Hears the server move between SERVING and NOT_SERVING (default: logs it). */
  public XdsServerBuilder xdsServingStatusListener(XdsServingStatusListener listener) {
    this.statusListener = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /**
   * How long the calls of a drained connection (its filter chain changed or went away, or the
   * server stopped serving) may go on before it is closed. Default 10 minutes.
   */
  public XdsServerBuilder drainGraceTime(long time, TimeUnit unit) {
    if (time < 0) {
      throw new IllegalArgumentException("time must be at least 0, not " + time);
    }
    this.drainGraceNanos = unit.toNanos(time);
    return this;
  }

  /**
   * The bootstrap to use instead of the environment's ({@code GRPC_XDS_BOOTSTRAP}, {@code
   * GRPC_XDS_BOOTSTRAP_CONFIG}).
   */
  public XdsServerBuilder bootstrap(Bootstrap bootstrap) {
    Objects.requireNonNull(bootstrap, "bootstrap");
    this.bootstrap = () -> bootstrap;
    return this;
  }

  /** The pool whose xDS client the server uses (default: {@link XdsClientPool#shared()}). */
  public XdsServerBuilder xdsClientPool(XdsClientPool pool) {
    this.pool = Objects.requireNonNull(pool, "pool");
    return this;
  }

  @Override
  public Server build() {
    XdsServingStatusListener listener = statusListener;
    XdsServing serving =
        new XdsServing(
            bootstrap, pool, listener::onServing, listener::onNotServing, drainGraceNanos);
    delegate.addTransportFilter(serving.transportFilter(connectionCredentials));
    delegate.intercept(serving.interceptor()); // added last: runs before the user's interceptors
    return serving.wrap(delegate.build());
  }

  /** The default listener: one log line per change. */
  private static final class LoggingListener implements XdsServingStatusListener {
    @Override
    public void onServing() {
      logger.info("xDS server: SERVING");
    }

    @Override
    public void onNotServing(Throwable cause) {
      logger.log(Level.WARNING, "xDS server: NOT_SERVING: " + cause.getMessage());
    }
  }
}
