package dev.tern;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A channel builder that hands every option of {@link ManagedChannelBuilder} to another builder,
 * {@link #delegate()}, and returns itself for chaining. Transports build their public builders on
 * it (adding their own options) around the runtime's builder, and applications can use it to wrap a
 * builder they are given.
 *
 * <p>Not thread-safe, like every builder: configure from one thread, then {@link #build()}.
 *
 * @param <T> the concrete builder type, returned by the option methods
 */
public abstract class ForwardingChannelBuilder<T extends ForwardingChannelBuilder<T>>
    extends ManagedChannelBuilder<T> {

  /** For subclasses. */
  protected ForwardingChannelBuilder() {}

  /** The builder every option is handed to; the same one on every call. */
  protected abstract ManagedChannelBuilder<?> delegate();

  /** Returns this builder as its concrete type. */
  @SuppressWarnings("unchecked") // T is this class's own type parameter, bound to the subclass
  protected final T thisT() {
    return (T) this;
  }

  @Override
  public T directExecutor() {
    delegate().directExecutor();
    return thisT();
  }

  @Override
  public T executor(Executor executor) {
    delegate().executor(executor);
    return thisT();
  }

  @Override
  public T intercept(List<ClientInterceptor> interceptors) {
    delegate().intercept(interceptors);
    return thisT();
  }

  @Override
  public T intercept(ClientInterceptor... interceptors) {
    delegate().intercept(interceptors);
    return thisT();
  }

  @Override
  public T interceptWithTarget(Function<String, ClientInterceptor> factory) {
    delegate().interceptWithTarget(factory);
    return thisT();
  }

  @Override
  public T proxyDetector(ProxyDetector proxyDetector) {
    delegate().proxyDetector(proxyDetector);
    return thisT();
  }

  @Override
  public T userAgent(String userAgent) {
    delegate().userAgent(userAgent);
    return thisT();
  }

  @Override
  public T overrideAuthority(String authority) {
    delegate().overrideAuthority(authority);
    return thisT();
  }

  @Override
  public T idleTimeout(long value, TimeUnit unit) {
    delegate().idleTimeout(value, unit);
    return thisT();
  }

  @Override
  public T keepAliveTime(long time, TimeUnit unit) {
    delegate().keepAliveTime(time, unit);
    return thisT();
  }

  @Override
  public T keepAliveTimeout(long timeout, TimeUnit unit) {
    delegate().keepAliveTimeout(timeout, unit);
    return thisT();
  }

  @Override
  public T keepAliveWithoutCalls(boolean enable) {
    delegate().keepAliveWithoutCalls(enable);
    return thisT();
  }

  @Override
  public T maxInboundMessageSize(int bytes) {
    delegate().maxInboundMessageSize(bytes);
    return thisT();
  }

  @Override
  public T maxInboundMetadataSize(int bytes) {
    delegate().maxInboundMetadataSize(bytes);
    return thisT();
  }

  @Override
  public T usePlaintext() {
    delegate().usePlaintext();
    return thisT();
  }

  @Override
  public T useTransportSecurity() {
    delegate().useTransportSecurity();
    return thisT();
  }

  @Override
  public T nameResolverRegistry(NameResolverRegistry registry) {
    delegate().nameResolverRegistry(registry);
    return thisT();
  }

  @Override
  public T loadBalancerRegistry(LoadBalancerRegistry registry) {
    delegate().loadBalancerRegistry(registry);
    return thisT();
  }

  @Override
  public T defaultLoadBalancingPolicy(String policy) {
    delegate().defaultLoadBalancingPolicy(policy);
    return thisT();
  }

  @Override
  public T defaultServiceConfig(Map<String, ?> serviceConfig) {
    delegate().defaultServiceConfig(serviceConfig);
    return thisT();
  }

  @Override
  public T defaultServiceConfigJson(String json) {
    delegate().defaultServiceConfigJson(json);
    return thisT();
  }

  @Override
  public T disableServiceConfigLookUp() {
    delegate().disableServiceConfigLookUp();
    return thisT();
  }

  @Override
  public T enableRetry() {
    delegate().enableRetry();
    return thisT();
  }

  @Override
  public T disableRetry() {
    delegate().disableRetry();
    return thisT();
  }

  @Override
  public T maxRetryAttempts(int maxAttempts) {
    delegate().maxRetryAttempts(maxAttempts);
    return thisT();
  }

  @Override
  public T maxHedgedAttempts(int maxAttempts) {
    delegate().maxHedgedAttempts(maxAttempts);
    return thisT();
  }

  @Override
  public T retryBufferSize(long bytes) {
    delegate().retryBufferSize(bytes);
    return thisT();
  }

  @Override
  public T perRpcBufferLimit(long bytes) {
    delegate().perRpcBufferLimit(bytes);
    return thisT();
  }

  @Override
  public T adaptiveThrottling(double k) {
    delegate().adaptiveThrottling(k);
    return thisT();
  }

  @Override
  public T compressorRegistry(CompressorRegistry registry) {
    delegate().compressorRegistry(registry);
    return thisT();
  }

  @Override
  public T decompressorRegistry(DecompressorRegistry registry) {
    delegate().decompressorRegistry(registry);
    return thisT();
  }

  @Override
  public T addStreamTracerFactory(ClientStreamTracer.Factory factory) {
    delegate().addStreamTracerFactory(factory);
    return thisT();
  }

  @Override
  public T addMetricSink(MetricSink sink) {
    delegate().addMetricSink(sink);
    return thisT();
  }

  @Override
  public T setBinaryLog(BinaryLog binaryLog) {
    delegate().setBinaryLog(binaryLog);
    return thisT();
  }

  @Override
  public ManagedChannel build() {
    return delegate().build();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{delegate=" + delegate() + "}";
  }
}
