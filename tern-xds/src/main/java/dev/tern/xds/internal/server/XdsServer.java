package dev.tern.xds.internal.server;

import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.xds.Bootstrap;
import dev.tern.xds.XdsClient;
import dev.tern.xds.XdsClientPool;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * An xDS-enabled server: the transport's server, bound at {@link #start}, plus the watch of its
 * Listener (named by the bootstrap's {@code server_listener_resource_name_template} for the bound
 * address) that decides which connections it serves and how. Until the Listener arrives it closes
 * every connection as soon as it is accepted, writing nothing (A36). Thread-safe: start and
 * shutdown are synchronized; the rest is the delegate's.
 */
final class XdsServer extends Server {
  private final Server delegate;
  private final Supplier<Bootstrap> bootstrap;
  private final XdsClientPool pool;
  private final ServingState state;
  private XdsClient client;
  private ServingWatch watch;
  private ChainSecurity security;

  XdsServer(
      Server delegate, Supplier<Bootstrap> bootstrap, XdsClientPool pool, ServingState state) {
    this.delegate = delegate;
    this.bootstrap = bootstrap;
    this.pool = pool;
    this.state = state;
  }

  @Override
  public synchronized Server start() throws IOException {
    Bootstrap config;
    try {
      config = bootstrap.get();
    } catch (IllegalArgumentException e) {
      throw new IOException("xDS server: no usable bootstrap: " + e.getMessage(), e);
    }
    String template = config.serverListenerResourceNameTemplate();
    if (template == null || template.isEmpty()) {
      throw new IOException(
          "xDS server: the bootstrap has no server_listener_resource_name_template");
    }
    delegate.start();
    InetSocketAddress bound = boundAddress();
    InetAddress ip = bound.getAddress();
    String host = ip.isAnyLocalAddress() ? "0.0.0.0" : ip.getHostAddress();
    String hostPort = (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort();
    String resourceName = template.replace("%s", hostPort);
    client = pool.acquire(config, XdsClientPool.SERVER_SCOPE);
    security = new ChainSecurity(config);
    state.waitFor(resourceName, security);
    watch = new ServingWatch(client, resourceName, ip, bound.getPort(), state);
    watch.start();
    return this;
  }

  private InetSocketAddress boundAddress() throws IOException {
    for (SocketAddress address : delegate.getListenSockets()) {
      if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
        return inet;
      }
    }
    delegate.shutdownNow();
    throw new IOException(
        "xDS server: the transport listens on no IP address: " + delegate.getListenSockets());
  }

  private synchronized void stopWatching() {
    if (watch != null) {
      watch.close();
      watch = null;
      pool.release(client);
      client = null;
      security.close();
    }
  }

  @Override
  public Server shutdown() {
    stopWatching();
    delegate.shutdown();
    return this;
  }

  @Override
  public Server shutdownNow() {
    stopWatching();
    delegate.shutdownNow();
    return this;
  }

  @Override
  public int getPort() {
    return delegate.getPort();
  }

  @Override
  public List<? extends SocketAddress> getListenSockets() {
    return delegate.getListenSockets();
  }

  @Override
  public List<ServerServiceDefinition> getServices() {
    return delegate.getServices();
  }

  @Override
  public List<ServerServiceDefinition> getMutableServices() {
    return delegate.getMutableServices();
  }

  @Override
  public boolean isShutdown() {
    return delegate.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return delegate.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return delegate.awaitTermination(timeout, unit);
  }

  @Override
  public void awaitTermination() throws InterruptedException {
    delegate.awaitTermination();
  }

  @Override
  public String toString() {
    return "XdsServer[" + delegate + "]";
  }
}
