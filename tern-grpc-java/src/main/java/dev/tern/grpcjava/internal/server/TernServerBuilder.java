package dev.tern.grpcjava.internal.server;

import dev.tern.netty.NettyServerBuilder;
import java.io.File;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * grpc-java's server builder over Tern's: each option maps to the Tern builder's option of the same
 * name (the keepalive and connection-age options to {@link NettyServerBuilder}'s, Tern's network
 * transport), and {@link #build} converts the {@code io.grpc} services, the fallback registry and
 * the interceptors (see {@link Services}) and returns a {@link TernServer}. An option Tern cannot
 * honour throws {@link UnsupportedOperationException} naming it when it is set. Not thread-safe,
 * like every builder.
 */
final class TernServerBuilder extends io.grpc.ServerBuilder<TernServerBuilder> {
  private final dev.tern.ServerBuilder<?> delegate;
  private final List<io.grpc.ServerServiceDefinition> services = new ArrayList<>();
  private final List<io.grpc.ServerInterceptor> interceptors = new ArrayList<>();

  /**
   * The io.grpc context every call's own starts from: {@code io.grpc.Context.ROOT} holding the
   * bridged server (what grpc-java's reflection service reads), made once. It exists only once the
   * server is built, and calls arrive only after it has started.
   */
  private final AtomicReference<io.grpc.Context> callRoot = new AtomicReference<>();

  private io.grpc.HandlerRegistry fallback;
  private io.grpc.BinaryLog binaryLog;

  TernServerBuilder(dev.tern.ServerBuilder<?> delegate) {
    this.delegate = delegate;
  }

  private static UnsupportedOperationException unsupported(String option) {
    return new UnsupportedOperationException(
        "Tern's io.grpc server builder does not support " + option);
  }

  /** Applies a transport option, which only Tern's Netty server builder has. */
  private TernServerBuilder netty(String option, Consumer<NettyServerBuilder> setter) {
    if (!(delegate instanceof NettyServerBuilder netty)) {
      throw unsupported(option + " on " + delegate.getClass().getName());
    }
    setter.accept(netty);
    return this;
  }

  @Override
  public TernServerBuilder directExecutor() {
    delegate.directExecutor();
    return this;
  }

  @Override
  public TernServerBuilder executor(Executor executor) {
    delegate.executor(Objects.requireNonNull(executor, "executor"));
    return this;
  }

  @Override
  public TernServerBuilder callExecutor(io.grpc.ServerCallExecutorSupplier supplier) {
    throw unsupported("callExecutor");
  }

  @Override
  public TernServerBuilder addService(io.grpc.ServerServiceDefinition service) {
    services.add(Objects.requireNonNull(service, "service"));
    return this;
  }

  @Override
  public TernServerBuilder addService(io.grpc.BindableService bindableService) {
    return addService(Objects.requireNonNull(bindableService, "bindableService").bindService());
  }

  @Override
  public TernServerBuilder fallbackHandlerRegistry(io.grpc.HandlerRegistry registry) {
    this.fallback = registry;
    return this;
  }

  @Override
  public TernServerBuilder intercept(io.grpc.ServerInterceptor interceptor) {
    interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
    return this;
  }

  /**
   * Runs grpc-java's filter on each connection, after the filters added before it: the attributes
   * it returns are what the connection's calls see, as on grpc-java.
   */
  @Override
  public TernServerBuilder addTransportFilter(io.grpc.ServerTransportFilter filter) {
    delegate.addTransportFilter(
        new GrpcJavaTransportFilter(Objects.requireNonNull(filter, "filter")));
    return this;
  }

  @Override
  public TernServerBuilder addStreamTracerFactory(io.grpc.ServerStreamTracer.Factory factory) {
    delegate.addStreamTracerFactory(
        new GrpcJavaServerTracers(Objects.requireNonNull(factory, "factory"), callRoot::get));
    return this;
  }

  /**
   * Logs every call through grpc-java's binary log (for example grpc-services' {@code
   * BinaryLogs.createBinaryLog(sink, "*")}), which wraps each method definition outside the
   * interceptors, as grpc-java's server does; null for none. The application closes it.
   */
  @Override
  public TernServerBuilder setBinaryLog(io.grpc.BinaryLog binaryLog) {
    this.binaryLog = binaryLog;
    return this;
  }

  @Override
  public TernServerBuilder useTransportSecurity(File certChain, File privateKey) {
    delegate.useTransportSecurity(certChain, privateKey);
    return this;
  }

  @Override
  public TernServerBuilder useTransportSecurity(InputStream certChain, InputStream privateKey) {
    delegate.useTransportSecurity(certChain, privateKey);
    return this;
  }

  @Override
  public TernServerBuilder decompressorRegistry(io.grpc.DecompressorRegistry registry) {
    if (registry != io.grpc.DecompressorRegistry.getDefaultInstance()) {
      throw unsupported(
          "decompressorRegistry other than the default (Tern decompresses with its own registry:"
              + " gzip, and zstd with tern-zstd)");
    }
    return this;
  }

  @Override
  public TernServerBuilder compressorRegistry(io.grpc.CompressorRegistry registry) {
    if (registry != io.grpc.CompressorRegistry.getDefaultInstance()) {
      throw unsupported(
          "compressorRegistry other than the default (Tern compresses with its own registry:"
              + " gzip, and zstd with tern-zstd)");
    }
    return this;
  }

  @Override
  public TernServerBuilder handshakeTimeout(long timeout, TimeUnit unit) {
    delegate.handshakeTimeout(timeout, unit);
    return this;
  }

  @Override
  public TernServerBuilder maxInboundMessageSize(int bytes) {
    delegate.maxInboundMessageSize(bytes);
    return this;
  }

  @Override
  public TernServerBuilder maxInboundMetadataSize(int bytes) {
    delegate.maxInboundMetadataSize(bytes);
    return this;
  }

  @Override
  public TernServerBuilder keepAliveTime(long time, TimeUnit unit) {
    return netty("keepAliveTime", b -> b.keepAliveTime(time, unit));
  }

  @Override
  public TernServerBuilder keepAliveTimeout(long timeout, TimeUnit unit) {
    return netty("keepAliveTimeout", b -> b.keepAliveTimeout(timeout, unit));
  }

  @Override
  public TernServerBuilder maxConnectionIdle(long time, TimeUnit unit) {
    return netty("maxConnectionIdle", b -> b.maxConnectionIdle(time, unit));
  }

  @Override
  public TernServerBuilder maxConnectionAge(long time, TimeUnit unit) {
    return netty("maxConnectionAge", b -> b.maxConnectionAge(time, unit));
  }

  @Override
  public TernServerBuilder maxConnectionAgeGrace(long time, TimeUnit unit) {
    return netty("maxConnectionAgeGrace", b -> b.maxConnectionAgeGrace(time, unit));
  }

  @Override
  public TernServerBuilder permitKeepAliveTime(long time, TimeUnit unit) {
    return netty("permitKeepAliveTime", b -> b.permitKeepAliveTime(time, unit));
  }

  @Override
  public TernServerBuilder permitKeepAliveWithoutCalls(boolean permit) {
    return netty("permitKeepAliveWithoutCalls", b -> b.permitKeepAliveWithoutCalls(permit));
  }

  @Override
  public io.grpc.Server build() {
    for (io.grpc.ServerServiceDefinition service : services) {
      delegate.addService(Services.toTern(service, interceptors, binaryLog, callRoot::get));
    }
    if (fallback != null) {
      delegate.fallbackHandlerRegistry(
          new HandlerRegistryAdapter(fallback, interceptors, binaryLog, callRoot::get));
    }
    TernServer server = new TernServer(delegate.build(), services, fallback);
    callRoot.set(io.grpc.Context.ROOT.withValue(io.grpc.InternalServer.SERVER_CONTEXT_KEY, server));
    return server;
  }

  @Override
  public String toString() {
    return "TernServerBuilder{" + delegate + "}";
  }
}
