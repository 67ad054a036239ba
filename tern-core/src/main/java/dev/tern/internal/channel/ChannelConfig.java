package dev.tern.internal.channel;

import dev.tern.BinaryLog;
import dev.tern.ClientInterceptor;
import dev.tern.CompressorRegistry;
import dev.tern.Deadline;
import dev.tern.DecompressorRegistry;
import dev.tern.LoadBalancerRegistry;
import dev.tern.MetricRecorder;
import dev.tern.NameResolver;
import dev.tern.ProxyDetector;
import dev.tern.internal.SharedExecutors;
import dev.tern.internal.client.AdaptiveThrottling;
import dev.tern.internal.client.CallSettings;
import dev.tern.spi.ClientTransportFactory;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.DoubleSupplier;
import java.util.function.Function;

/**
 * Everything a {@link ManagedChannelImpl} is built from. {@code AbstractManagedChannelBuilder}
 * fills it from its options; tests build one directly to plug in fakes.
 *
 * <p>Immutable; thread-safe (given thread-safe components, as the SPI requires).
 *
 * @param target the target as given to the builder (for messages and balancers)
 * @param nameResolverFactory creates a resolver (not started) for the target; called once when the
 *     channel is built (so a malformed target fails the build) and again after each idle period
 * @param defaultPort the port for targets that name none
 * @param authorityOverride the {@code :authority} of calls that do not override it, or null for the
 *     resolver's service authority
 * @param defaultLoadBalancingPolicy the policy used until a service config names one
 * @param loadBalancerRegistry where policies are looked up
 * @param userAgent the full {@code user-agent} value handed to the transports
 * @param transportFactory creates the transports; the channel closes it when it terminates
 * @param executor the application executor, or null for {@link SharedExecutors#callbackExecutor()}
 * @param directExecutor run callbacks inline on the transport thread (then {@code executor} is
 *     ignored)
 * @param interceptors wrap every call; the last one runs first
 * @param idleTimeoutNanos how long the channel may sit unused before it drops its connections
 * @param maxInboundMessageSize default largest response message
 * @param compressorRegistry where {@code CallOptions.withCompression} names are looked up
 * @param decompressorRegistry what responses may be compressed with (and is advertised)
 * @param ticker the time source for the idle timer (tests pass a fake)
 * @param backoffRandom uniform doubles in [0, 1) that jitter the reconnect and retry back-offs
 * @param serviceConfigOptions the default service config, look-up, and the retry limits
 * @param binaryLog wraps the channel's innermost channel, below the interceptors; null for none
 * @param proxyDetector handed to the name resolvers ({@link NameResolver.Args#getProxyDetector()})
 * @param adaptiveThrottling the client-side throttling of each subchannel, or null for none (the
 *     default)
 * @param metricRecorder the channel's metric sinks, for its balancer and subchannels (gRFC A79)
 */
public record ChannelConfig(
    String target,
    Function<NameResolver.Args, NameResolver> nameResolverFactory,
    int defaultPort,
    String authorityOverride,
    String defaultLoadBalancingPolicy,
    LoadBalancerRegistry loadBalancerRegistry,
    String userAgent,
    ClientTransportFactory transportFactory,
    Executor executor,
    boolean directExecutor,
    List<ClientInterceptor> interceptors,
    long idleTimeoutNanos,
    int maxInboundMessageSize,
    CompressorRegistry compressorRegistry,
    DecompressorRegistry decompressorRegistry,
    Deadline.Ticker ticker,
    DoubleSupplier backoffRandom,
    ServiceConfigOptions serviceConfigOptions,
    BinaryLog binaryLog,
    ProxyDetector proxyDetector,
    AdaptiveThrottling adaptiveThrottling,
    MetricRecorder metricRecorder) {

  /**
   * Checks the components.
   *
   * @throws IllegalArgumentException if {@code idleTimeoutNanos} is not positive, {@code
   *     maxInboundMessageSize} is negative or {@code defaultPort} is not 0..65535
   */
  public ChannelConfig {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(nameResolverFactory, "nameResolverFactory");
    Objects.requireNonNull(defaultLoadBalancingPolicy, "defaultLoadBalancingPolicy");
    Objects.requireNonNull(loadBalancerRegistry, "loadBalancerRegistry");
    Objects.requireNonNull(userAgent, "userAgent");
    Objects.requireNonNull(transportFactory, "transportFactory");
    interceptors = List.copyOf(Objects.requireNonNull(interceptors, "interceptors"));
    Objects.requireNonNull(compressorRegistry, "compressorRegistry");
    Objects.requireNonNull(decompressorRegistry, "decompressorRegistry");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(backoffRandom, "backoffRandom");
    Objects.requireNonNull(serviceConfigOptions, "serviceConfigOptions");
    Objects.requireNonNull(proxyDetector, "proxyDetector");
    Objects.requireNonNull(metricRecorder, "metricRecorder");
    if (idleTimeoutNanos <= 0) {
      throw new IllegalArgumentException(
          "idleTimeoutNanos must be positive, was " + idleTimeoutNanos);
    }
    if (maxInboundMessageSize < 0) {
      throw new IllegalArgumentException(
          "maxInboundMessageSize must be >= 0, was " + maxInboundMessageSize);
    }
    if (defaultPort < 0 || defaultPort > 65535) {
      throw new IllegalArgumentException("defaultPort must be in 0..65535, was " + defaultPort);
    }
  }

  /**
   * The settings each call of this channel needs, whose application executor is {@code executor}.
   */
  public CallSettings callSettings(Executor executor) {
    return new CallSettings(
        executor,
        directExecutor,
        transportFactory.getScheduledExecutorService(),
        ticker,
        maxInboundMessageSize,
        compressorRegistry,
        decompressorRegistry,
        transportFactory.requestsCrossThreads());
  }
}
