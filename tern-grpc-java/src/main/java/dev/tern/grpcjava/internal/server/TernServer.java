package dev.tern.grpcjava.internal.server;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's {@code Server} over a Tern server: its life cycle and addresses are the Tern
 * server's; {@link #getImmutableServices} lists the {@code io.grpc} services it was built with and
 * {@link #getMutableServices} those of its fallback registry (what grpc-java's reflection service
 * reads). Thread-safe, as the Tern server is.
 */
final class TernServer extends io.grpc.Server {
  private final dev.tern.Server tern;
  private final List<io.grpc.ServerServiceDefinition> services;
  private final io.grpc.HandlerRegistry fallback;

  TernServer(
      dev.tern.Server tern,
      List<io.grpc.ServerServiceDefinition> services,
      io.grpc.HandlerRegistry fallback) {
    this.tern = tern;
    this.services = List.copyOf(services);
    this.fallback = fallback;
  }

  @Override
  public io.grpc.Server start() throws IOException {
    tern.start();
    return this;
  }

  @Override
  public int getPort() {
    return tern.getPort();
  }

  @Override
  public List<? extends SocketAddress> getListenSockets() {
    return tern.getListenSockets();
  }

  @Override
  public List<io.grpc.ServerServiceDefinition> getServices() {
    List<io.grpc.ServerServiceDefinition> all = new java.util.ArrayList<>(services);
    all.addAll(getMutableServices());
    return all;
  }

  @Override
  public List<io.grpc.ServerServiceDefinition> getImmutableServices() {
    return services;
  }

  /** The services of the fallback registry, as grpc-java's server reports them. */
  @Override
  public List<io.grpc.ServerServiceDefinition> getMutableServices() {
    return fallback == null ? List.of() : fallback.getServices();
  }

  @Override
  public io.grpc.Server shutdown() {
    tern.shutdown();
    return this;
  }

  @Override
  public io.grpc.Server shutdownNow() {
    tern.shutdownNow();
    return this;
  }

  @Override
  public boolean isShutdown() {
    return tern.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return tern.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return tern.awaitTermination(timeout, unit);
  }

  @Override
  public void awaitTermination() throws InterruptedException {
    tern.awaitTermination();
  }

  @Override
  public String toString() {
    return "TernServer{" + tern + "}";
  }
}
