package dev.tern.grpcjava.internal.client;

import dev.tern.grpcjava.internal.balancer.GrpcJavaBalancers;
import dev.tern.grpcjava.internal.convert.Proxies;
import dev.tern.grpcjava.internal.metrics.GrpcJavaMetricSink;
import dev.tern.grpcjava.internal.resolver.GrpcJavaResolvers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's channel builder over Tern's: each option maps to the Tern builder's option of the
 * same name, and {@link #build} returns a {@link TernManagedChannel} whose calls run on the Tern
 * channel, under the {@code io.grpc} interceptors given here. Its policies are looked up in {@link
 * GrpcJavaBalancers#registry()} (Tern's, then grpc-java's registered ones). An option Tern cannot
 * honour throws {@link UnsupportedOperationException} naming it when it is set. Not thread-safe,
 * like every builder: configure it from one thread.
 */
final class TernChannelBuilder extends io.grpc.ManagedChannelBuilder<TernChannelBuilder> {
  private final dev.tern.ManagedChannelBuilder<?> delegate;
  private final String target;
  private final List<io.grpc.ClientInterceptor> interceptors = new ArrayList<>();
  private final List<InterceptorFactory> interceptorFactories = new ArrayList<>();
  private io.grpc.BinaryLog binaryLog;
  private io.grpc.NameResolver.Factory resolverFactory;
  private final Map<io.grpc.NameResolver.Args.Key<?>, Object> resolverArgs = new HashMap<>();

  TernChannelBuilder(dev.tern.ManagedChannelBuilder<?> delegate, String target) {
    // Before any service config is set: grpc-java's registered balancers are found by name.
    this.delegate = delegate.loadBalancerRegistry(GrpcJavaBalancers.registry());
    this.target = target;
  }

  private static UnsupportedOperationException unsupported(String option) {
    return new UnsupportedOperationException(
        "Tern's io.grpc channel builder does not support " + option);
  }

  @Override
  public TernChannelBuilder directExecutor() {
    delegate.directExecutor();
    return this;
  }

  @Override
  public TernChannelBuilder executor(Executor executor) {
    delegate.executor(Objects.requireNonNull(executor, "executor"));
    return this;
  }

  /**
   * Accepted and unused: Tern's channel does no blocking work (its DNS resolution is asynchronous)
   * that an offload executor would run.
   */
  @Override
  public TernChannelBuilder offloadExecutor(Executor executor) {
    Objects.requireNonNull(executor, "executor");
    return this;
  }

  @Override
  public TernChannelBuilder intercept(List<io.grpc.ClientInterceptor> interceptors) {
    for (io.grpc.ClientInterceptor interceptor : interceptors) {
      this.interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
    }
    return this;
  }

  @Override
  public TernChannelBuilder intercept(io.grpc.ClientInterceptor... interceptors) {
    return intercept(Arrays.asList(interceptors));
  }

  @Override
  protected TernChannelBuilder interceptWithTarget(InterceptorFactory factory) {
    interceptorFactories.add(Objects.requireNonNull(factory, "factory"));
    return this;
  }

  @Override
  public TernChannelBuilder userAgent(String userAgent) {
    delegate.userAgent(userAgent);
    return this;
  }

  @Override
  public TernChannelBuilder overrideAuthority(String authority) {
    delegate.overrideAuthority(authority);
    return this;
  }

  @Override
  public TernChannelBuilder usePlaintext() {
    delegate.usePlaintext();
    return this;
  }

  @Override
  public TernChannelBuilder useTransportSecurity() {
    delegate.useTransportSecurity();
    return this;
  }

  /**
   * Resolves the target with {@code resolverFactory}, whatever its scheme (a target without one
   * reaches it with the factory's default scheme), instead of Tern's resolvers or grpc-java's
   * registry, as on grpc-java.
   */
  @Override
  @Deprecated
  public TernChannelBuilder nameResolverFactory(io.grpc.NameResolver.Factory resolverFactory) {
    this.resolverFactory = Objects.requireNonNull(resolverFactory, "resolverFactory");
    return this;
  }

  @Override
  public TernChannelBuilder decompressorRegistry(io.grpc.DecompressorRegistry registry) {
    if (registry != io.grpc.DecompressorRegistry.getDefaultInstance()) {
      throw unsupported(
          "decompressorRegistry other than the default (Tern decompresses with its own registry:"
              + " gzip, and zstd with tern-zstd)");
    }
    return this;
  }

  @Override
  public TernChannelBuilder compressorRegistry(io.grpc.CompressorRegistry registry) {
    if (registry != io.grpc.CompressorRegistry.getDefaultInstance()) {
      throw unsupported(
          "compressorRegistry other than the default (Tern compresses with its own registry:"
              + " gzip, and zstd with tern-zstd)");
    }
    return this;
  }

  @Override
  public TernChannelBuilder idleTimeout(long value, TimeUnit unit) {
    delegate.idleTimeout(value, unit);
    return this;
  }

  @Override
  public TernChannelBuilder maxInboundMessageSize(int bytes) {
    delegate.maxInboundMessageSize(bytes);
    return this;
  }

  @Override
  public TernChannelBuilder maxInboundMetadataSize(int bytes) {
    delegate.maxInboundMetadataSize(bytes);
    return this;
  }

  @Override
  public TernChannelBuilder keepAliveTime(long time, TimeUnit unit) {
    delegate.keepAliveTime(time, unit);
    return this;
  }

  @Override
  public TernChannelBuilder keepAliveTimeout(long timeout, TimeUnit unit) {
    delegate.keepAliveTimeout(timeout, unit);
    return this;
  }

  @Override
  public TernChannelBuilder keepAliveWithoutCalls(boolean enable) {
    delegate.keepAliveWithoutCalls(enable);
    return this;
  }

  @Override
  public TernChannelBuilder defaultLoadBalancingPolicy(String policy) {
    delegate.defaultLoadBalancingPolicy(policy);
    return this;
  }

  @Override
  public TernChannelBuilder defaultServiceConfig(Map<String, ?> serviceConfig) {
    delegate.defaultServiceConfig(serviceConfig);
    return this;
  }

  @Override
  public TernChannelBuilder disableServiceConfigLookUp() {
    delegate.disableServiceConfigLookUp();
    return this;
  }

  @Override
  public TernChannelBuilder enableRetry() {
    delegate.enableRetry();
    return this;
  }

  @Override
  public TernChannelBuilder disableRetry() {
    delegate.disableRetry();
    return this;
  }

  @Override
  public TernChannelBuilder maxRetryAttempts(int maxAttempts) {
    delegate.maxRetryAttempts(maxAttempts);
    return this;
  }

  @Override
  public TernChannelBuilder maxHedgedAttempts(int maxAttempts) {
    delegate.maxHedgedAttempts(maxAttempts);
    return this;
  }

  @Override
  public TernChannelBuilder retryBufferSize(long bytes) {
    delegate.retryBufferSize(bytes);
    return this;
  }

  @Override
  public TernChannelBuilder perRpcBufferLimit(long bytes) {
    delegate.perRpcBufferLimit(bytes);
    return this;
  }

  @Override
  public TernChannelBuilder addTransportFilter(io.grpc.ClientTransportFilter filter) {
    throw unsupported(
        "addTransportFilter (a grpc-java ClientTransportFilter: Tern's channel has no filter on its"
            + " connections)");
  }

  /**
   * Logs every call through grpc-java's binary log, which wraps the channel under the interceptors,
   * as grpc-java's channel does; null for none. The application closes it.
   */
  @Override
  public TernChannelBuilder setBinaryLog(io.grpc.BinaryLog binaryLog) {
    this.binaryLog = binaryLog;
    return this;
  }

  @Override
  public TernChannelBuilder maxTraceEvents(int maxTraceEvents) {
    throw unsupported("maxTraceEvents");
  }

  @Override
  public TernChannelBuilder proxyDetector(io.grpc.ProxyDetector proxyDetector) {
    delegate.proxyDetector(Proxies.toTern(Objects.requireNonNull(proxyDetector, "proxyDetector")));
    return this;
  }

  /**
   * Adds a grpc-java metric sink (grpc-opentelemetry's, through {@code
   * InternalManagedChannelBuilder.addMetricSink}), fed with the channel's non-per-call metrics:
   * Tern's instruments, under the grpc-java instruments of the same names ({@link
   * GrpcJavaMetricSink}).
   */
  @Override
  protected TernChannelBuilder addMetricSink(io.grpc.MetricSink metricSink) {
    delegate.addMetricSink(
        new GrpcJavaMetricSink(Objects.requireNonNull(metricSink, "metricSink")));
    return this;
  }

  /**
   * Gives {@code value} to a grpc-java name resolver of this channel in its {@code
   * NameResolver.Args}; Tern's own resolvers read no such arguments.
   */
  @Override
  public <X> TernChannelBuilder setNameResolverArg(io.grpc.NameResolver.Args.Key<X> key, X value) {
    resolverArgs.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    return this;
  }

  @Override
  public io.grpc.ManagedChannel build() {
    List<io.grpc.ClientInterceptor> all = new ArrayList<>(interceptors);
    for (InterceptorFactory factory : interceptorFactories) {
      io.grpc.ClientInterceptor interceptor = factory.newInterceptor(target);
      if (interceptor != null) {
        all.add(interceptor);
      }
    }
    if (resolverFactory != null || !resolverArgs.isEmpty()) {
      dev.tern.NameResolverRegistry registry =
          GrpcJavaResolvers.registryFor(target, resolverFactory, resolverArgs);
      if (registry != null) {
        delegate.nameResolverRegistry(registry);
      }
    }
    return new TernManagedChannel(delegate.build(), all, binaryLog);
  }

  @Override
  public String toString() {
    return "TernChannelBuilder{target=" + target + ", delegate=" + delegate + "}";
  }
}
