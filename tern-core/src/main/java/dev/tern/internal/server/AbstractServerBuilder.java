package dev.tern.internal.server;

import dev.tern.BinaryLog;
import dev.tern.CompressorRegistry;
import dev.tern.Deadline;
import dev.tern.DecompressorRegistry;
import dev.tern.HandlerRegistry;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.ServerInterceptor;
import dev.tern.ServerMethodDefinition;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerStreamTracer;
import dev.tern.ServerTransportFilter;
import dev.tern.channelz.CallCounter;
import dev.tern.internal.SharedExecutors;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.TransportServer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The common part of every transport's {@link ServerBuilder}: it validates and stores the options,
 * and {@link #build()} wraps the transport's {@link TransportServer} in Tern's server runtime. A
 * transport implements {@link #buildTransportServer()}, reading the options it needs through the
 * protected getters (for example {@link #maxInboundMessageSize()}).
 *
 * <p>Defaults: no fallback registry, the shared callback executor, no interceptors or filters, 4
 * MiB inbound messages, 8 KiB inbound metadata, a 20 s handshake timeout, no bound on calls in
 * progress, and the default compressor and decompressor registries (gzip and identity).
 *
 * <p>Not thread-safe: configure from one thread, then call {@link #build()}. Each {@code build()}
 * makes a new, independent server.
 *
 * @param <T> the concrete builder type, returned by every option for chaining
 */
public abstract class AbstractServerBuilder<T extends AbstractServerBuilder<T>>
    extends ServerBuilder<T> {

  /**
   * Runs each task on the calling thread; what {@link #directExecutor()} selects. The dispatcher's
   * own, which it recognises: callbacks then run on the transport's thread, where requests act at
   * once.
   */
  private static final Executor DIRECT_EXECUTOR = ServerCallDispatcher.DIRECT;

  /**
   * 20 seconds for a new connection to become ready (on HTTP/2: the TLS handshake, the client's
   * preface and its first SETTINGS). An honest client needs a few round trips, well under a second
   * on most networks and a few seconds on a poor mobile link even with a lost packet or two
   * retransmitted; a peer that opens connections and sends nothing (or trickles its preface a byte
   * at a time) holds a socket and its buffers for this long each, so the shorter the bound, the
   * fewer such connections one attacker keeps open at once.
   */
  private static final long DEFAULT_HANDSHAKE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);

  /** Keyed by service name, in the order added, so duplicates are caught here, not at run time. */
  private final Map<String, ServerServiceDefinition> services = new LinkedHashMap<>();

  /** Services and methods declared non-blocking, checked against {@link #services} at build. */
  private final Set<String> nonBlocking = new LinkedHashSet<>();

  private final List<ServerInterceptor> interceptors = new ArrayList<>();
  private final List<ServerTransportFilter> transportFilters = new ArrayList<>();
  private HandlerRegistry fallbackHandlerRegistry;
  private BinaryLog binaryLog;
  private final List<ServerStreamTracer.Factory> streamTracerFactories = new ArrayList<>();
  private Executor executor;
  private boolean directExecutor;
  private int maxInboundMessageSize = GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE;
  private int maxInboundMetadataSize = GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE;
  private long handshakeTimeoutNanos = DEFAULT_HANDSHAKE_TIMEOUT_NANOS;
  private int maxConcurrentCalls = Integer.MAX_VALUE;
  private Long overloadRetryPushback; // null: none
  private boolean adaptiveConcurrencyLimit = true;
  private boolean adaptiveConcurrencyLimitPerMethod;
  private Deadline.Ticker ticker = Deadline.getSystemTicker();
  private CompressorRegistry compressorRegistry = CompressorRegistry.getDefaultInstance();
  private DecompressorRegistry decompressorRegistry = DecompressorRegistry.getDefaultInstance();

  /** For subclasses. */
  protected AbstractServerBuilder() {}

  /**
   * Creates the transport's listening half from the options set so far. Called once per {@link
   * #build()}; the server starts it in {@link Server#start()}.
   */
  protected abstract TransportServer buildTransportServer();

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if a service with the same name was already added
   */
  @Override
  public T addService(ServerServiceDefinition service) {
    Objects.requireNonNull(service, "service");
    String name = service.getServiceDescriptor().getName();
    if (services.putIfAbsent(name, service) != null) {
      throw new IllegalArgumentException("addService: service already added: " + name);
    }
    return thisBuilder();
  }

  /** {@inheritDoc} {@code null} removes a registry set earlier. */
  @Override
  public T fallbackHandlerRegistry(HandlerRegistry registry) {
    this.fallbackHandlerRegistry = registry;
    return thisBuilder();
  }

  /** {@inheritDoc} Replaces an earlier {@link #directExecutor()}. */
  @Override
  public T executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    this.directExecutor = false;
    return thisBuilder();
  }

  /** {@inheritDoc} Replaces an earlier {@link #executor(Executor)}. */
  @Override
  public T directExecutor() {
    this.executor = null;
    this.directExecutor = true;
    return thisBuilder();
  }

  /**
   * {@inheritDoc}
   *
   * <p>With {@link #directExecutor()} every method runs on the transport's thread anyway; the
   * declaration then adds the check of Tern's blocking calls to the methods it names.
   */
  @Override
  public T nonBlocking(String fullServiceOrMethodName) {
    Objects.requireNonNull(fullServiceOrMethodName, "fullServiceOrMethodName");
    nonBlocking.add(fullServiceOrMethodName);
    return thisBuilder();
  }

  @Override
  public T intercept(ServerInterceptor interceptor) {
    interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
    return thisBuilder();
  }

  @Override
  public T addTransportFilter(ServerTransportFilter filter) {
    transportFilters.add(Objects.requireNonNull(filter, "filter"));
    return thisBuilder();
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  @Override
  public T maxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("maxInboundMessageSize must be >= 0: " + bytes);
    }
    this.maxInboundMessageSize = bytes;
    return thisBuilder();
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if {@code bytes} is not positive
   */
  @Override
  public T maxInboundMetadataSize(int bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maxInboundMetadataSize must be > 0: " + bytes);
    }
    this.maxInboundMetadataSize = bytes;
    return thisBuilder();
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  @Override
  public T handshakeTimeout(long timeout, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (timeout <= 0) {
      throw new IllegalArgumentException("handshakeTimeout must be > 0: " + timeout + " " + unit);
    }
    this.handshakeTimeoutNanos = unit.toNanos(timeout);
    return thisBuilder();
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if {@code max} is not positive
   */
  @Override
  public T maxConcurrentCalls(int max) {
    if (max <= 0) {
      throw new IllegalArgumentException("maxConcurrentCalls must be > 0, was " + max);
    }
    this.maxConcurrentCalls = max;
    return thisBuilder();
  }

  /** {@inheritDoc} */
  @Override
  public T overloadRetryPushback(long millis) {
    this.overloadRetryPushback = millis;
    return thisBuilder();
  }

  /** {@inheritDoc} */
  @Override
  public T adaptiveConcurrencyLimit(boolean enabled) {
    this.adaptiveConcurrencyLimit = enabled;
    return thisBuilder();
  }

  /** {@inheritDoc} */
  @Override
  public T adaptiveConcurrencyLimitPerMethod(boolean perMethod) {
    this.adaptiveConcurrencyLimitPerMethod = perMethod;
    return thisBuilder();
  }

  /**
   * The clock calls' deadlines are measured by (default: the system's); the deadline timers still
   * run on the transport's scheduler. For tests of a timer that fires late.
   */
  T deadlineTicker(Deadline.Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    return thisBuilder();
  }

  /** {@inheritDoc} Default: {@link CompressorRegistry#getDefaultInstance()}. */
  @Override
  public T compressorRegistry(CompressorRegistry registry) {
    this.compressorRegistry = Objects.requireNonNull(registry, "compressorRegistry");
    return thisBuilder();
  }

  /** {@inheritDoc} Default: {@link DecompressorRegistry#getDefaultInstance()}. */
  @Override
  public T decompressorRegistry(DecompressorRegistry registry) {
    this.decompressorRegistry = Objects.requireNonNull(registry, "decompressorRegistry");
    return thisBuilder();
  }

  /** {@inheritDoc} */
  @Override
  public T addStreamTracerFactory(ServerStreamTracer.Factory factory) {
    streamTracerFactories.add(Objects.requireNonNull(factory, "factory"));
    return thisBuilder();
  }

  /** {@inheritDoc} Replaces an earlier log. */
  @Override
  public T setBinaryLog(BinaryLog binaryLog) {
    this.binaryLog = binaryLog;
    return thisBuilder();
  }

  /**
   * Builds the server: the added services (with the builder's interceptors applied once, here) go
   * into one immutable method map, and the transport's {@link TransportServer} is created.
   */
  @Override
  public Server build() {
    checkNonBlockingNames();
    CallCounter calls = new CallCounter();
    ServerCallDispatcher dispatcher =
        new ServerCallDispatcher(
            services.values(),
            nonBlocking,
            interceptors,
            fallbackHandlerRegistry,
            binaryLog,
            executor(),
            maxInboundMessageSize,
            compressorRegistry,
            decompressorRegistry,
            calls,
            streamTracerFactories,
            maxConcurrentCalls,
            overloadRetryPushback,
            adaptiveConcurrencyLimit,
            adaptiveConcurrencyLimitPerMethod,
            ticker);
    return new ServerImpl(
        buildTransportServer(),
        dispatcher,
        new ArrayList<>(services.values()),
        transportFilters,
        handshakeTimeoutNanos,
        calls);
  }

  /** Fails for the names given to {@link #nonBlocking} that no added service has. */
  private void checkNonBlockingNames() {
    Set<String> unknown = new LinkedHashSet<>(nonBlocking);
    unknown.removeAll(services.keySet());
    for (ServerServiceDefinition service : services.values()) {
      for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
        unknown.remove(method.getMethodDescriptor().getFullMethodName());
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "nonBlocking: no added service or method is named "
              + String.join(", ", unknown)
              + " (a service is \"pkg.Service\", a method \"pkg.Service/Method\")");
    }
  }

  /** The services added so far, in order; unmodifiable. */
  protected final List<ServerServiceDefinition> services() {
    return Collections.unmodifiableList(new ArrayList<>(services.values()));
  }

  /** The fallback registry, or null. */
  protected final HandlerRegistry fallbackHandlerRegistry() {
    return fallbackHandlerRegistry;
  }

  /**
   * The executor application callbacks will run on: the one set with {@link #executor(Executor)}, a
   * direct executor after {@link #directExecutor()}, else the shared default pool.
   */
  protected final Executor executor() {
    if (directExecutor) {
      return DIRECT_EXECUTOR;
    }
    return executor != null ? executor : SharedExecutors.callbackExecutor();
  }

  /** Whether {@link #directExecutor()} was chosen (transports may then skip their own hops). */
  protected final boolean isDirectExecutor() {
    return directExecutor;
  }

  /** The interceptors in the order added (the last one runs first); unmodifiable. */
  protected final List<ServerInterceptor> interceptors() {
    return Collections.unmodifiableList(interceptors);
  }

  /** The transport filters in the order added; unmodifiable. */
  protected final List<ServerTransportFilter> transportFilters() {
    return Collections.unmodifiableList(transportFilters);
  }

  /** Largest request message, in bytes. Default 4 MiB. */
  protected final int maxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  /** Largest request header list, in bytes (HTTP/2 counting). Default 8 KiB. */
  protected final int maxInboundMetadataSize() {
    return maxInboundMetadataSize;
  }

  /** The handshake timeout in nanoseconds. Default 120 s. */
  protected final long handshakeTimeoutNanos() {
    return handshakeTimeoutNanos;
  }

  /** The compressor registry. */
  protected final CompressorRegistry compressorRegistry() {
    return compressorRegistry;
  }

  /** The decompressor registry. */
  protected final DecompressorRegistry decompressorRegistry() {
    return decompressorRegistry;
  }

  /** This builder as its concrete type. */
  protected final T thisBuilder() {
    // Safe: T is by declaration the concrete subclass, and every instance is a T.
    @SuppressWarnings("unchecked")
    T self = (T) this;
    return self;
  }
}
