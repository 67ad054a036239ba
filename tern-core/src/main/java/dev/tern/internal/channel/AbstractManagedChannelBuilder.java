package dev.tern.internal.channel;

import dev.tern.BinaryLog;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.CompressorRegistry;
import dev.tern.Deadline;
import dev.tern.DecompressorRegistry;
import dev.tern.LoadBalancerRegistry;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.MethodDescriptor;
import dev.tern.MetricRecorder;
import dev.tern.MetricSink;
import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import dev.tern.NameResolverRegistry;
import dev.tern.ProxyDetector;
import dev.tern.internal.client.AdaptiveThrottling;
import dev.tern.internal.config.ServiceConfig;
import dev.tern.internal.config.ServiceConfigParser;
import dev.tern.internal.proxy.SystemProxyDetector;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientTransportFactory;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The common part of every transport's channel builder: it implements the options of {@link
 * ManagedChannelBuilder}, exposes them to subclasses through protected getters, and {@link
 * #build()}s the runtime's channel around the hooks a transport provides: {@link
 * #buildTransportFactory()} and {@link #target()}, and optionally {@link #directAddress()}, {@link
 * #authority()}, {@link #defaultPort()} and {@link #supportedAddressTypes()}.
 *
 * <p>Defaults: the shared callback executor, no interceptors, no user-agent prefix, the name
 * resolver's authority, the default name resolver registry, {@code pick_first}, idle timeout 30
 * minutes, inbound messages up to 4 MiB, inbound metadata up to 8 KiB, transport security on, the
 * default compressor and decompressor registries, no default service config, service configs from
 * the resolver used, retries on (at most 5 attempts; 16 MiB of requests kept per channel, 1 MiB per
 * call).
 *
 * <p>Not thread-safe: configure from one thread, then build.
 *
 * @param <T> the concrete builder type, returned by the option methods for chaining
 */
public abstract class AbstractManagedChannelBuilder<T extends AbstractManagedChannelBuilder<T>>
    extends ManagedChannelBuilder<T> {

  /** Default idle timeout: 30 minutes. */
  public static final long DEFAULT_IDLE_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(30);

  private Executor executor;
  private boolean directExecutor;
  private final List<ClientInterceptor> interceptors = new ArrayList<>();
  private String userAgent;
  private String authorityOverride;
  private long idleTimeoutNanos = DEFAULT_IDLE_TIMEOUT_NANOS;
  private int maxInboundMessageSize = GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE;
  private int maxInboundMetadataSize = GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE;
  private boolean plaintext;
  private CompressorRegistry compressorRegistry = CompressorRegistry.getDefaultInstance();
  private DecompressorRegistry decompressorRegistry = DecompressorRegistry.getDefaultInstance();
  private NameResolverRegistry nameResolverRegistry;
  private BinaryLog binaryLog;
  private final List<MetricSink> metricSinks = new ArrayList<>();
  private ProxyDetector proxyDetector = SystemProxyDetector.getDefault();
  private String defaultLoadBalancingPolicy = "pick_first";
  private LoadBalancerRegistry loadBalancerRegistry = LoadBalancerRegistry.getDefaultRegistry();
  // The default service config, parsed again if the registry changes after it was set.
  private Function<LoadBalancerRegistry, ServiceConfig> defaultServiceConfigSource;
  private ServiceConfig defaultServiceConfig;
  private boolean serviceConfigLookUp = true;
  private boolean retryEnabled = true;
  private int maxRetryAttempts = ServiceConfigOptions.DEFAULT.maxRetryAttempts();
  private int maxHedgedAttempts = ServiceConfigOptions.DEFAULT.maxHedgedAttempts();
  private long retryBufferSize = ServiceConfigOptions.DEFAULT.retryBufferSize();
  private long perRpcBufferLimit = ServiceConfigOptions.DEFAULT.perRpcBufferLimit();
  private double adaptiveThrottlingK; // 0: off

  /** For subclasses. */
  protected AbstractManagedChannelBuilder() {}

  /** Returns this builder as its concrete type. */
  @SuppressWarnings("unchecked") // T is this class's own type parameter, bound to the subclass
  protected final T thisT() {
    return (T) this;
  }

  /** Runs callbacks inline on the transport thread; replaces any {@link #executor}. */
  @Override
  public T directExecutor() {
    directExecutor = true;
    executor = null;
    return thisT();
  }

  /** Runs callbacks on {@code executor} (not shut down by the channel); replaces directExecutor. */
  @Override
  public T executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    directExecutor = false;
    return thisT();
  }

  /** Adds interceptors; over all calls, the last one added runs first. */
  @Override
  public T intercept(List<ClientInterceptor> interceptors) {
    Objects.requireNonNull(interceptors, "interceptors");
    for (int i = 0; i < interceptors.size(); i++) {
      if (interceptors.get(i) == null) {
        throw new NullPointerException("interceptors[" + i + "]");
      }
    }
    this.interceptors.addAll(interceptors);
    return thisT();
  }

  @Override
  public T interceptWithTarget(Function<String, ClientInterceptor> factory) {
    interceptors.add(new TargetInterceptor(Objects.requireNonNull(factory, "factory")));
    return thisT();
  }

  /**
   * Holds the place of an interceptor made at {@link #build()} from the channel's target; never
   * reaches a channel.
   */
  private record TargetInterceptor(Function<String, ClientInterceptor> factory)
      implements ClientInterceptor {
    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      throw new IllegalStateException("placeholder of an interceptor made at build()");
    }
  }

  /**
   * {@code target} with its scheme: as given if it has one, else after the default scheme's {@code
   * :///}.
   */
  private static String canonicalTarget(NameResolverRegistry registry, String target) {
    String scheme = registry.targetUri(target).getScheme();
    return target.startsWith(scheme + ":") ? target : scheme + ":///" + target;
  }

  /** The interceptors with each placeholder replaced by its factory's interceptor. */
  private List<ClientInterceptor> interceptorsFor(String canonicalTarget) {
    List<ClientInterceptor> result = new ArrayList<>(interceptors.size());
    for (ClientInterceptor interceptor : interceptors) {
      if (interceptor instanceof TargetInterceptor placeholder) {
        result.add(
            Objects.requireNonNull(
                placeholder.factory().apply(canonicalTarget),
                "interceptWithTarget factory returned null"));
      } else {
        result.add(interceptor);
      }
    }
    return result;
  }

  /**
   * Prepends {@code userAgent} to Tern's own user-agent token.
   *
   * @throws IllegalArgumentException if it is empty or has characters a header value cannot hold
   */
  @Override
  public T userAgent(String userAgent) {
    Objects.requireNonNull(userAgent, "userAgent");
    if (userAgent.isEmpty()) {
      throw new IllegalArgumentException("userAgent must not be empty");
    }
    for (int i = 0; i < userAgent.length(); i++) {
      char c = userAgent.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        throw new IllegalArgumentException(
            "userAgent has a character at index " + i + " that a header value cannot hold");
      }
    }
    this.userAgent = userAgent;
    return thisT();
  }

  /**
   * Sends {@code authority} as the {@code :authority} of calls instead of the transport's.
   *
   * @throws IllegalArgumentException if it is empty or contains whitespace, control characters,
   *     '/', '?' or '#'
   */
  @Override
  public T overrideAuthority(String authority) {
    Objects.requireNonNull(authority, "authority");
    if (authority.isEmpty()) {
      throw new IllegalArgumentException("overrideAuthority: authority must not be empty");
    }
    for (int i = 0; i < authority.length(); i++) {
      char c = authority.charAt(i);
      if (c <= 0x20 || c >= 0x7f || c == '/' || c == '?' || c == '#') {
        throw new IllegalArgumentException(
            "overrideAuthority: invalid character at index " + i + " in '" + authority + "'");
      }
    }
    this.authorityOverride = authority;
    return thisT();
  }

  /**
   * Sets the idle timeout (default 30 minutes). Values of 30 days or more disable idle mode.
   *
   * @throws IllegalArgumentException if {@code value} is not positive
   */
  @Override
  public T idleTimeout(long value, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (value <= 0) {
      throw new IllegalArgumentException("idleTimeout must be positive, was " + value + " " + unit);
    }
    idleTimeoutNanos = unit.toNanos(value);
    return thisT();
  }

  /**
   * Sets the largest response message accepted (default 4 MiB).
   *
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  @Override
  public T maxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("maxInboundMessageSize must be >= 0, was " + bytes);
    }
    maxInboundMessageSize = bytes;
    return thisT();
  }

  /**
   * Sets the largest response header or trailer list accepted (default 8 KiB).
   *
   * @throws IllegalArgumentException if {@code bytes} is not positive
   */
  @Override
  public T maxInboundMetadataSize(int bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maxInboundMetadataSize must be > 0, was " + bytes);
    }
    maxInboundMetadataSize = bytes;
    return thisT();
  }

  /** Records that the transport should not use TLS; see {@link #isPlaintext()}. */
  @Override
  public T usePlaintext() {
    plaintext = true;
    return thisT();
  }

  /** Records that the transport should use TLS (the default). */
  @Override
  public T useTransportSecurity() {
    plaintext = false;
    return thisT();
  }

  @Override
  public T compressorRegistry(CompressorRegistry registry) {
    compressorRegistry = Objects.requireNonNull(registry, "registry");
    return thisT();
  }

  @Override
  public T decompressorRegistry(DecompressorRegistry registry) {
    decompressorRegistry = Objects.requireNonNull(registry, "registry");
    return thisT();
  }

  /** {@inheritDoc} Replaces an earlier log. */
  @Override
  public T setBinaryLog(BinaryLog binaryLog) {
    this.binaryLog = binaryLog;
    return thisT();
  }

  @Override
  public T addMetricSink(MetricSink sink) {
    metricSinks.add(Objects.requireNonNull(sink, "sink"));
    return thisT();
  }

  @Override
  public T proxyDetector(ProxyDetector proxyDetector) {
    this.proxyDetector = Objects.requireNonNull(proxyDetector, "proxyDetector");
    return thisT();
  }

  /** Uses {@code registry} to find the target's name resolver instead of the default registry. */
  @Override
  public T nameResolverRegistry(NameResolverRegistry registry) {
    this.nameResolverRegistry = Objects.requireNonNull(registry, "registry");
    return thisT();
  }

  /**
   * Looks policies up in {@code registry} instead of the default registry; a default service config
   * set before is checked again against it.
   *
   * @throws IllegalArgumentException if the default service config names no policy {@code registry}
   *     has
   */
  @Override
  public T loadBalancerRegistry(LoadBalancerRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    ServiceConfig config =
        defaultServiceConfigSource == null ? null : defaultServiceConfigSource.apply(registry);
    this.loadBalancerRegistry = registry;
    this.defaultServiceConfig = config;
    return thisT();
  }

  /**
   * The load-balancing policy used until a service config names one (default {@code pick_first}). A
   * name no registered provider has makes every call fail UNAVAILABLE naming it.
   *
   * @throws IllegalArgumentException if {@code policy} is empty
   */
  @Override
  public T defaultLoadBalancingPolicy(String policy) {
    Objects.requireNonNull(policy, "policy");
    if (policy.isEmpty()) {
      throw new IllegalArgumentException("defaultLoadBalancingPolicy must not be empty");
    }
    this.defaultLoadBalancingPolicy = policy;
    return thisT();
  }

  /**
   * Sets the default service config (null clears it); it is checked now.
   *
   * @throws IllegalArgumentException if it is invalid; the message names the field and value
   */
  @Override
  public T defaultServiceConfig(Map<String, ?> serviceConfig) {
    return setDefaultServiceConfig(
        serviceConfig == null
            ? null
            : registry -> ServiceConfigParser.parse(serviceConfig, registry));
  }

  private T setDefaultServiceConfig(Function<LoadBalancerRegistry, ServiceConfig> source) {
    defaultServiceConfig = source == null ? null : source.apply(loadBalancerRegistry);
    defaultServiceConfigSource = source;
    return thisT();
  }

  /**
   * Sets the default service config from JSON text; it is checked now.
   *
   * @throws IllegalArgumentException if the JSON is malformed or the config invalid
   */
  @Override
  public T defaultServiceConfigJson(String json) {
    Objects.requireNonNull(json, "json");
    return setDefaultServiceConfig(registry -> ServiceConfigParser.parseJson(json, registry));
  }

  @Override
  public T disableServiceConfigLookUp() {
    serviceConfigLookUp = false;
    return thisT();
  }

  @Override
  public T enableRetry() {
    retryEnabled = true;
    return thisT();
  }

  @Override
  public T disableRetry() {
    retryEnabled = false;
    return thisT();
  }

  /**
   * @throws IllegalArgumentException if {@code maxAttempts} is less than 1
   */
  @Override
  public T maxRetryAttempts(int maxAttempts) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxRetryAttempts must be >= 1, was " + maxAttempts);
    }
    maxRetryAttempts = maxAttempts;
    return thisT();
  }

  /**
   * @throws IllegalArgumentException if {@code maxAttempts} is less than 1
   */
  @Override
  public T maxHedgedAttempts(int maxAttempts) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxHedgedAttempts must be >= 1, was " + maxAttempts);
    }
    maxHedgedAttempts = maxAttempts;
    return thisT();
  }

  /**
   * @throws IllegalArgumentException if {@code bytes} is not positive
   */
  @Override
  public T retryBufferSize(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("retryBufferSize must be > 0, was " + bytes);
    }
    retryBufferSize = bytes;
    return thisT();
  }

  /**
   * @throws IllegalArgumentException if {@code bytes} is not positive
   */
  @Override
  public T perRpcBufferLimit(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("perRpcBufferLimit must be > 0, was " + bytes);
    }
    perRpcBufferLimit = bytes;
    return thisT();
  }

  /**
   * @throws IllegalArgumentException if {@code k} is less than 1, infinite or NaN
   */
  @Override
  public T adaptiveThrottling(double k) {
    adaptiveThrottlingK = AdaptiveThrottling.checkK(k);
    return thisT();
  }

  /**
   * Builds the channel from the hooks: a name resolver for {@link #target()} (or the one {@link
   * #directAddress()}), {@link #authority()} for a direct address, then {@link
   * #buildTransportFactory()}.
   *
   * @throws IllegalArgumentException if the target is malformed, has no resolver, or resolves to
   *     addresses this transport cannot reach; the message says which
   */
  @Override
  public ManagedChannel build() {
    String target = Objects.requireNonNull(target(), "target() returned null");
    SocketAddress direct = directAddress();
    Function<NameResolver.Args, NameResolver> resolverFactory;
    String canonicalTarget = target;
    if (direct != null) {
      String directAuthority = Objects.requireNonNull(authority(), "authority() returned null");
      resolverFactory = args -> new DirectAddressNameResolver(direct, directAuthority);
    } else {
      NameResolverRegistry registry =
          nameResolverRegistry != null
              ? nameResolverRegistry
              : NameResolverRegistry.getDefaultRegistry();
      checkAddressTypes(registry, target);
      resolverFactory = args -> registry.newNameResolver(target, args);
      if (!metricSinks.isEmpty()
          || interceptors.stream().anyMatch(TargetInterceptor.class::isInstance)) {
        canonicalTarget = canonicalTarget(registry, target);
      }
    }
    List<ClientInterceptor> channelInterceptors = interceptorsFor(canonicalTarget);
    ClientTransportFactory factory =
        Objects.requireNonNull(buildTransportFactory(), "buildTransportFactory() returned null");
    try {
      return new ManagedChannelImpl(
          new ChannelConfig(
              target,
              resolverFactory,
              defaultPort(),
              authorityOverride,
              defaultLoadBalancingPolicy,
              loadBalancerRegistry,
              fullUserAgent(),
              factory,
              executor,
              directExecutor,
              channelInterceptors,
              idleTimeoutNanos,
              maxInboundMessageSize,
              compressorRegistry,
              decompressorRegistry,
              Deadline.getSystemTicker(),
              () -> ThreadLocalRandom.current().nextDouble(),
              new ServiceConfigOptions(
                  defaultServiceConfig,
                  serviceConfigLookUp,
                  retryEnabled,
                  maxRetryAttempts,
                  maxHedgedAttempts,
                  retryBufferSize,
                  perRpcBufferLimit),
              binaryLog,
              proxyDetector,
              adaptiveThrottlingK == 0
                  ? null
                  : new AdaptiveThrottling(
                      adaptiveThrottlingK,
                      AdaptiveThrottling.DEFAULT_WINDOW_NANOS,
                      AdaptiveThrottling.DEFAULT_BUCKETS,
                      Deadline.getSystemTicker(),
                      () -> ThreadLocalRandom.current().nextDouble()),
              MetricRecorder.of(canonicalTarget, metricSinks)));
    } catch (RuntimeException e) {
      factory.close();
      throw e;
    }
  }

  private void checkAddressTypes(NameResolverRegistry registry, String target) {
    Collection<Class<? extends SocketAddress>> supported = supportedAddressTypes();
    NameResolverProvider provider = registry.providerForTarget(target);
    if (supported == null || provider == null) {
      return; // any address, or a malformed target that the resolver lookup will explain
    }
    for (Class<? extends SocketAddress> produced : provider.getProducedSocketAddressTypes()) {
      for (Class<? extends SocketAddress> accepted : supported) {
        if (accepted.isAssignableFrom(produced)) {
          return;
        }
      }
    }
    List<String> producedNames = new ArrayList<>();
    for (Class<?> type : provider.getProducedSocketAddressTypes()) {
      producedNames.add(type.getSimpleName());
    }
    List<String> supportedNames = new ArrayList<>();
    for (Class<?> type : supported) {
      supportedNames.add(type.getSimpleName());
    }
    throw new IllegalArgumentException(
        "target '"
            + target
            + "' resolves to "
            + producedNames
            + " addresses, which this channel's transport cannot reach (it supports "
            + supportedNames
            + ")");
  }

  /**
   * Creates the factory of the channel's transports. Called once per {@link #build()}; the channel
   * closes the factory when it terminates.
   */
  protected abstract ClientTransportFactory buildTransportFactory();

  /** The target as given to the builder (for a direct address, a description of it). */
  protected abstract String target();

  /**
   * The one address to connect to, bypassing name resolution; null (the default) to resolve {@link
   * #target()}.
   */
  protected SocketAddress directAddress() {
    return null;
  }

  /**
   * The default {@code :authority} of calls to a {@link #directAddress()} (used unless {@link
   * #overrideAuthority} was set). Resolved targets use their resolver's service authority.
   */
  protected String authority() {
    return "localhost";
  }

  /** The port for targets that name none: 443 (transports may say 80 for plaintext). */
  protected int defaultPort() {
    return 443;
  }

  /**
   * The address types this transport can connect to, or null (the default) for any; a target whose
   * resolver produces none of them fails {@link #build()}.
   */
  protected Collection<Class<? extends SocketAddress>> supportedAddressTypes() {
    return null;
  }

  /** The executor set with {@link #executor}, or null (shared default, or direct). */
  protected final Executor executor() {
    return executor;
  }

  /** Whether {@link #directExecutor()} is in effect. */
  protected final boolean isDirectExecutor() {
    return directExecutor;
  }

  /** The interceptors added so far, in the order added; unmodifiable. */
  protected final List<ClientInterceptor> interceptors() {
    return Collections.unmodifiableList(new ArrayList<>(interceptors));
  }

  /** The user-agent prefix set with {@link #userAgent(String)}, or null. */
  protected final String userAgent() {
    return userAgent;
  }

  /** The full {@code user-agent}: the prefix and a space if set, then Tern's token. */
  protected final String fullUserAgent() {
    return userAgent == null
        ? GrpcHeaders.USER_AGENT_TOKEN
        : userAgent + " " + GrpcHeaders.USER_AGENT_TOKEN;
  }

  /** The authority set with {@link #overrideAuthority}, or null. */
  protected final String authorityOverride() {
    return authorityOverride;
  }

  /** The idle timeout in nanoseconds. */
  protected final long idleTimeoutNanos() {
    return idleTimeoutNanos;
  }

  /** The largest inbound message in bytes. */
  protected final int maxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  /** The largest inbound header or trailer list in bytes (for the transport to enforce). */
  protected final int maxInboundMetadataSize() {
    return maxInboundMetadataSize;
  }

  /** Whether {@link #usePlaintext()} is in effect (false by default). */
  protected boolean isPlaintext() {
    return plaintext;
  }

  /** The compressor registry. */
  protected final CompressorRegistry compressorRegistry() {
    return compressorRegistry;
  }

  /** The decompressor registry. */
  protected final DecompressorRegistry decompressorRegistry() {
    return decompressorRegistry;
  }
}
