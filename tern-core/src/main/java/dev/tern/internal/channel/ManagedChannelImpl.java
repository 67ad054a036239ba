package dev.tern.internal.channel;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptors;
import dev.tern.ConnectivityState;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.NameResolver;
import dev.tern.NonBlockingScope;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.channelz.Channelz;
import dev.tern.internal.BlockingThreads;
import dev.tern.internal.SharedExecutors;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The runtime's {@link ManagedChannel}: target -> name resolver -> load balancer -> subchannels ->
 * picker. Each call is born configured by {@link ConfiguringChannel} (the resolver's config
 * selector, or the service config); calls pick a READY subchannel's transport lock-free ({@link
 * BalancerStreams}), or wait for the balancer's next picker; the resolver, the balancer and the
 * subchannels live in {@link ChannelLifecycle}, serialized on one {@link SynchronizationContext};
 * the channel goes idle after its idle timeout ({@link ChannelUsage}) and shuts down in order.
 *
 * <p>Calls go through the configured interceptors (the last one added runs first); an interceptor
 * that throws yields a call that fails with a status describing it.
 *
 * <p>Application callbacks (call listeners, state-change callbacks, credentials) run on the
 * configured executor, else {@link SharedExecutors#callbackExecutor()}; with {@code directExecutor}
 * they run inline on the thread that produced the event.
 *
 * <p>Thread-safe.
 */
public final class ManagedChannelImpl extends ManagedChannel {
  private static final Executor DIRECT = Runnable::run;

  static final Status SHUTDOWN_STATUS =
      Status.UNAVAILABLE.withDescription("Channel shutdown invoked");
  static final Status SHUTDOWN_NOW_STATUS =
      Status.UNAVAILABLE.withDescription("Channel shutdownNow invoked");

  private final ChannelConfig config;
  private final Executor executor;
  private final ScheduledExecutorService scheduler;
  private final String authority;
  private final SynchronizationContext sync;
  private final ChannelStateTracker state;
  private final ChannelNode node;
  private final ChannelUsage usage;
  private final BalancerStreams calls;
  private final ConfiguringChannel configuring;
  private final ChannelLifecycle lifecycle;
  private final Channel interceptedChannel;
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final AtomicBoolean shutdown = new AtomicBoolean();

  /**
   * Creates a channel; it resolves and connects lazily, on the first call or {@code
   * getState(true)}.
   *
   * @throws IllegalArgumentException if the target is malformed (from the resolver factory)
   */
  public ManagedChannelImpl(ChannelConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    if (config.directExecutor()) {
      executor = DIRECT;
    } else if (config.executor() != null) {
      executor = config.executor();
    } else {
      executor = SharedExecutors.callbackExecutor();
    }
    this.scheduler = config.transportFactory().getScheduledExecutorService();
    // The handler refers to the lifecycle, created below; it runs only once tasks do.
    ChannelLifecycle[] holder = new ChannelLifecycle[1];
    this.sync = new SynchronizationContext((thread, error) -> holder[0].panic(error));
    NameResolver.Args args =
        NameResolver.Args.newBuilder()
            .setDefaultPort(config.defaultPort())
            .setSynchronizationContext(sync)
            .setScheduledExecutorService(scheduler)
            // Resolvers block there (DNS lookups): the blocking pool, not the callback pool.
            .setOffloadExecutor(BlockingThreads.executor())
            .setServiceConfigParser(new ChannelServiceConfigParser(config.loadBalancerRegistry()))
            .setProxyDetector(config.proxyDetector())
            .setMetricRecorder(config.metricRecorder())
            .build();
    NameResolver firstResolver =
        Objects.requireNonNull(
            config.nameResolverFactory().apply(args), "nameResolverFactory returned null");
    this.authority =
        config.authorityOverride() != null
            ? config.authorityOverride()
            : Objects.requireNonNull(
                firstResolver.getServiceAuthority(), "resolver's service authority is null");
    this.node = new ChannelNode(config.target());
    this.state = new ChannelStateTracker(executor, node.trace());
    node.stateFrom(state::get);
    this.usage =
        new ChannelUsage(
            scheduler,
            config.ticker(),
            config.idleTimeoutNanos(),
            () -> sync.execute(() -> holder[0].enterIdle()));
    CallsOwner owner = new CallsOwner();
    this.calls = new BalancerStreams(owner);
    this.configuring =
        new ConfiguringChannel(
            calls,
            owner,
            config.serviceConfigOptions(),
            config.callSettings(executor),
            node.calls(),
            authority,
            config.backoffRandom());
    this.lifecycle =
        new ChannelLifecycle(
            config,
            sync,
            calls,
            configuring,
            state,
            usage,
            firstResolver,
            args,
            authority,
            terminated,
            executor,
            node);
    holder[0] = lifecycle;
    Channel innermost = configuring;
    if (config.binaryLog() != null) {
      innermost = Objects.requireNonNull(config.binaryLog().wrapChannel(innermost), "wrapChannel");
    }
    this.interceptedChannel = ClientInterceptors.intercept(innermost, config.interceptors());
    Channelz.global().addRootChannel(node);
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(callOptions, "callOptions");
    return interceptedChannel.newCall(method, callOptions);
  }

  @Override
  public String authority() {
    return authority;
  }

  /**
   * Refuses new calls (they fail UNAVAILABLE "Channel shutdown invoked") and fails the calls still
   * waiting for a connection; calls in flight finish. Idempotent.
   */
  @Override
  public ManagedChannelImpl shutdown() {
    shutdown(false);
    return this;
  }

  /** Like {@link #shutdown()}, and cancels the calls in flight with UNAVAILABLE. */
  @Override
  public ManagedChannelImpl shutdownNow() {
    shutdown(true);
    return this;
  }

  private void shutdown(boolean now) {
    if (shutdown.compareAndSet(false, true)) {
      configuring.shutdown(now ? SHUTDOWN_NOW_STATUS : SHUTDOWN_STATUS);
      calls.shutdown(now ? SHUTDOWN_NOW_STATUS : SHUTDOWN_STATUS);
      state.set(ConnectivityState.SHUTDOWN);
    }
    sync.execute(() -> lifecycle.shutdown(now, SHUTDOWN_NOW_STATUS));
  }

  @Override
  public boolean isShutdown() {
    return shutdown.get();
  }

  /** True once shut down, every transport has terminated and the transport factory is closed. */
  @Override
  public boolean isTerminated() {
    return terminated.getCount() == 0;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    NonBlockingScope.checkMayBlock("ManagedChannel.awaitTermination");
    return terminated.await(timeout, unit);
  }

  /** The balancer's aggregate state; with {@code requestConnection}, an idle channel connects. */
  @Override
  public ConnectivityState getState(boolean requestConnection) {
    ConnectivityState current = state.get();
    if (requestConnection && current != ConnectivityState.SHUTDOWN) {
      sync.execute(lifecycle::requestConnection);
    }
    return current;
  }

  @Override
  public void notifyWhenStateChanged(ConnectivityState source, Runnable callback) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(callback, "callback");
    state.notifyWhenStateChanged(source, callback);
  }

  /** Drops the resolver, the balancer and the connections; calls waiting for one restart them. */
  @Override
  public void enterIdle() {
    sync.execute(lifecycle::enterIdle);
  }

  /**
   * Forgets every reconnect and re-resolution back-off, so servers that failed are tried again now.
   * (A new call in TRANSIENT_FAILURE does not cut the back-off short.)
   */
  @Override
  public void resetConnectBackoff() {
    sync.execute(lifecycle::resetConnectBackoff);
  }

  /** This channel's channelz id (registered in {@link Channelz#global()} until terminated). */
  public long channelzId() {
    return node.channelzId();
  }

  @Override
  public String toString() {
    return "ManagedChannelImpl{target=" + config.target() + ", authority=" + authority + "}";
  }

  /** What the waiting calls need from the channel. */
  private final class CallsOwner implements BalancerStreams.Owner {
    @Override
    public void callsQueued(int delta) {
      usage.callsQueued(delta);
    }

    @Override
    public void exitIdle() {
      sync.execute(lifecycle::exitIdle);
    }

    @Override
    public String authorityFor(CallOptions callOptions) {
      String override = callOptions.getAuthority();
      return override != null ? override : authority;
    }
  }
}
