package dev.tern.internal.channel;

import dev.tern.Attributes;
import dev.tern.ConfigSelector;
import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancer.FixedResultPicker;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.MetricRecorder;
import dev.tern.NameResolver;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.channelz.Channelz;
import dev.tern.internal.BackoffPolicy;
import dev.tern.internal.config.ServiceConfig;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The state machine behind a {@link ManagedChannelImpl}: idle mode (no resolver, no balancer, no
 * subchannels), active (a resolver feeding a balancer that owns subchannels), shut down (terminated
 * once every subchannel has), and panic (the resolver or balancer threw: every call fails INTERNAL
 * until shutdown). It is the balancer's {@link LoadBalancer.Helper} and the resolver's listener,
 * retries failed resolutions with back-off, and publishes pickers to {@link BalancerStreams} and
 * states to {@link ChannelStateTracker}.
 *
 * <p>Thread-safety: every method runs in the channel's {@link SynchronizationContext} (public entry
 * points queue their work there); the context's exception handler is {@link #panic}. Nothing here
 * holds a lock.
 */
final class ChannelLifecycle {
  private static final Logger logger = Logger.getLogger(ChannelLifecycle.class.getName());

  static final Status IDLE_STATUS =
      Status.UNAVAILABLE.withDescription("Channel entering idle mode");

  private final ChannelConfig config;
  private final SynchronizationContext sync;
  private final ScheduledExecutorService timer;
  private final BalancerStreams calls;
  private final ConfiguringChannel configuring;
  private final ServiceConfigSelector serviceConfigs;
  private final ChannelStateTracker state;
  private final ChannelUsage usage;
  private final String authority;
  private final CountDownLatch terminated;
  private final Executor callExecutor;
  private final NameResolver.Args resolverArgs;
  private final BackoffPolicy resolutionBackoff;
  private final Set<SubchannelImpl> subchannels = new LinkedHashSet<>();
  private final ChannelNode node;

  private NameResolver resolver; // the one made at build time until first used; null when idle
  private NameResolver unusedResolver;
  private PolicySelector balancer;
  private BalancerHelper helper;
  private SynchronizationContext.ScheduledHandle resolutionRetry;
  private boolean idle = true;
  private boolean shutdown;
  private boolean panicked;
  private boolean terminatedReported;

  ChannelLifecycle(
      ChannelConfig config,
      SynchronizationContext sync,
      BalancerStreams calls,
      ConfiguringChannel configuring,
      ChannelStateTracker state,
      ChannelUsage usage,
      NameResolver firstResolver,
      NameResolver.Args resolverArgs,
      String authority,
      CountDownLatch terminated,
      Executor callExecutor,
      ChannelNode node) {
    this.config = config;
    this.sync = sync;
    this.timer = config.transportFactory().getScheduledExecutorService();
    this.calls = calls;
    this.configuring = configuring;
    this.serviceConfigs = new ServiceConfigSelector(config.target(), config.serviceConfigOptions());
    this.state = state;
    this.usage = usage;
    this.unusedResolver = firstResolver;
    this.resolverArgs = resolverArgs;
    this.authority = authority;
    this.terminated = terminated;
    this.callExecutor = callExecutor;
    this.node = node;
    this.resolutionBackoff = new BackoffPolicy(config.backoffRandom());
  }

  /** Leaves idle mode: starts a resolver and a balancer. */
  void exitIdle() {
    if (shutdown || panicked || !idle) {
      return;
    }
    idle = false;
    calls.setIdle(false);
    if (unusedResolver != null) {
      resolver = unusedResolver;
      unusedResolver = null;
    } else {
      resolver = config.nameResolverFactory().apply(resolverArgs);
    }
    helper = new BalancerHelper();
    balancer =
        new PolicySelector(
            helper, config.loadBalancerRegistry(), policyOf(serviceConfigs.current()));
    usage.activated();
    try {
      resolver.start(new ResolverListener(resolver));
    } catch (RuntimeException | Error e) {
      panic("name resolver (" + resolver.getClass().getName() + ")", e);
    }
  }

  /** Enters idle mode: drops the resolver, the balancer and its subchannels. */
  void enterIdle() {
    if (shutdown || panicked || idle) {
      return;
    }
    idle = true;
    calls.setIdle(true);
    usage.deactivated();
    shutdownSubchannels(IDLE_STATUS);
    stopResolverAndBalancer();
    calls.updatePicker(null);
    state.set(ConnectivityState.IDLE);
    if (calls.hasWaiting()) {
      exitIdle(); // calls arrived meanwhile: they need a connection
    }
  }

  /** Asks the balancer to connect (leaving idle mode first if needed). */
  void requestConnection() {
    if (idle) {
      exitIdle();
    } else if (balancer != null) {
      balancer.requestConnection();
    }
  }

  /** Forgets every back-off: subchannels reconnect and a failed resolution is retried now. */
  void resetConnectBackoff() {
    resetSubchannelBackoffs();
    resolutionBackoff.reset();
    if (resolutionRetry != null && resolutionRetry.isPending()) {
      resolutionRetry.cancel();
      resolutionRetry = null;
      if (resolver != null) {
        resolver.refresh();
      }
    }
  }

  private void resetSubchannelBackoffs() {
    for (SubchannelImpl subchannel : subchannels) {
      subchannel.resetBackoff();
    }
  }

  /** Shuts down the resolver, the balancer and the subchannels; {@code now} cancels calls. */
  void shutdown(boolean now, Status nowStatus) {
    if (!shutdown) {
      shutdown = true;
      usage.cancel();
      shutdownSubchannels(ManagedChannelImpl.SHUTDOWN_STATUS); // first: theirs is the status used
      stopResolverAndBalancer();
      if (unusedResolver != null) {
        quietly(unusedResolver::shutdown, "name resolver shutdown");
        unusedResolver = null;
      }
    }
    if (now) {
      for (SubchannelImpl subchannel : subchannels) {
        subchannel.shutdownNow(nowStatus);
      }
    }
    maybeTerminate();
  }

  /**
   * The resolver or balancer threw: logs it, drops both, and fails every call (wait-for-ready ones
   * too) with INTERNAL until the channel is shut down. Runs in the context, as its handler.
   */
  void panic(Throwable cause) {
    panic("name resolver or load balancer", cause);
  }

  /** {@link #panic(Throwable)}, naming the component that threw when it is known. */
  private void panic(String who, Throwable cause) {
    logger.log(Level.SEVERE, "Channel for '" + config.target() + "': its " + who + " threw", cause);
    if (panicked || shutdown) {
      return;
    }
    panicked = true;
    Status status =
        Status.INTERNAL
            .withDescription("channel disabled: its " + who + " threw " + cause)
            .withCause(cause);
    shutdownSubchannels(status);
    stopResolverAndBalancer();
    configuring.update(serviceConfigs.current(), null); // calls waiting for one meet the drop
    calls.updatePicker(new FixedResultPicker(PickResult.withDrop(status)));
    state.set(ConnectivityState.TRANSIENT_FAILURE);
  }

  /** Shuts every subchannel down with the channel's reason, before its balancer would. */
  private void shutdownSubchannels(Status status) {
    for (SubchannelImpl subchannel : subchannels) {
      subchannel.shutdown(status);
    }
  }

  private void stopResolverAndBalancer() {
    if (resolutionRetry != null) {
      resolutionRetry.cancel();
      resolutionRetry = null;
    }
    NameResolver oldResolver = resolver;
    LoadBalancer oldBalancer = balancer;
    resolver = null;
    balancer = null;
    helper = null;
    if (oldResolver != null) {
      quietly(oldResolver::shutdown, "name resolver shutdown");
    }
    if (oldBalancer != null) {
      quietly(oldBalancer::shutdown, "load balancer shutdown");
    }
  }

  private void quietly(Runnable action, String what) {
    try {
      action.run();
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "Channel for '" + config.target() + "': " + what + " threw", e);
    }
  }

  private void maybeTerminate() {
    if (!shutdown || terminatedReported || !subchannels.isEmpty()) {
      return;
    }
    terminatedReported = true;
    try {
      config.transportFactory().close();
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "Closing the transport factory failed", e);
    } finally {
      Channelz.global().removeRootChannel(node);
      terminated.countDown();
    }
  }

  private void subchannelTerminated(SubchannelImpl subchannel) {
    subchannels.remove(subchannel);
    node.subchannelTerminated(subchannel);
    maybeTerminate();
  }

  private void handleResult(NameResolver from, NameResolver.ResolutionResult result) {
    if (from != resolver || balancer == null) {
      return; // a resolver dropped by idle mode or shutdown
    }
    ServiceConfig serviceConfig = serviceConfigs.select(result.getServiceConfig());
    if (serviceConfig == null) {
      handleError(
          from,
          Status.UNAVAILABLE.withDescription(
              "the name resolver gave an invalid service config and there is no other to use: "
                  + serviceConfigs.lastError().getDescription()));
      return;
    }
    Status accepted;
    try {
      balancer.usePolicy(policyOf(serviceConfig));
      accepted =
          balancer.acceptResolvedAddresses(
              LoadBalancer.ResolvedAddresses.newBuilder()
                  .setAddresses(result.getAddresses())
                  .setAttributes(attributesFor(result, serviceConfig))
                  .setLoadBalancingPolicyConfig(serviceConfig.loadBalancingPolicyConfig())
                  .build());
    } catch (RuntimeException | Error e) {
      panic("load balancer (" + balancer.policyName() + ")", e);
      return;
    }
    // The selector goes in after the balancer has the new config: a selector that routes calls
    // to a new part of it (an xDS route to a new cluster) must not run ahead of the picker that
    // knows that part. What a new selector stops using, the resolver keeps in the balancer's
    // config while calls still hold it.
    configuring.update(serviceConfig, result.getAttributes().get(ConfigSelector.KEY));
    if (accepted.isOk()) {
      resolutionBackoff.reset();
    } else {
      handleError(from, accepted);
    }
  }

  /**
   * The resolver's attributes, plus the service config's {@code healthCheckConfig} if it has one.
   */
  private static Attributes attributesFor(
      NameResolver.ResolutionResult result, ServiceConfig serviceConfig) {
    if (!(serviceConfig.raw().get("healthCheckConfig") instanceof Map<?, ?> healthCheck)) {
      return result.getAttributes();
    }
    @SuppressWarnings("unchecked") // a JSON object, parsed and checked by ServiceConfigParser
    Map<String, ?> config = (Map<String, ?>) healthCheck;
    return result.getAttributes().toBuilder()
        .set(LoadBalancer.ATTR_HEALTH_CHECKING_CONFIG, config)
        .build();
  }

  /** The policy {@code serviceConfig} names, else the channel's default. */
  private String policyOf(ServiceConfig serviceConfig) {
    String named = serviceConfig.loadBalancingPolicyName();
    return named != null ? named : config.defaultLoadBalancingPolicy();
  }

  private void handleError(NameResolver from, Status error) {
    if (from != resolver || balancer == null) {
      return;
    }
    if (!configuring.hasConfig()) {
      configuring.update(serviceConfigs.current(), null); // waiting calls go on to fail or wait
    }
    balancer.handleNameResolutionError(error);
    if (resolutionRetry == null || !resolutionRetry.isPending()) {
      resolutionRetry =
          sync.schedule(
              () -> {
                resolutionRetry = null;
                if (resolver == from) {
                  from.refresh();
                }
              },
              resolutionBackoff.nextBackoffNanos(),
              TimeUnit.NANOSECONDS,
              timer);
    }
  }

  /** Carries one resolver's results into the context. Thread-safe. */
  private final class ResolverListener extends NameResolver.Listener {
    private final NameResolver from;

    ResolverListener(NameResolver from) {
      this.from = from;
    }

    @Override
    public void onResult(NameResolver.ResolutionResult result) {
      java.util.Objects.requireNonNull(result, "result");
      sync.execute(() -> handleResult(from, result));
    }

    @Override
    public void onError(Status error) {
      java.util.Objects.requireNonNull(error, "error");
      Status status =
          error.isOk()
              ? Status.UNAVAILABLE.withDescription("resolver reported OK as error")
              : error;
      sync.execute(() -> handleError(from, status));
    }
  }

  /** The balancer's view of the channel; one per balancer, ignored once that balancer is gone. */
  private final class BalancerHelper extends LoadBalancer.Helper {
    @Override
    public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
      java.util.Objects.requireNonNull(args, "args");
      sync.throwIfNotInThisSynchronizationContext();
      SubchannelImpl subchannel =
          new SubchannelImpl(
              args.getAddresses(),
              args.getAttributes(),
              sync,
              config.transportFactory(),
              authority,
              config.userAgent(),
              usage,
              config.backoffRandom(),
              ChannelLifecycle.this::subchannelTerminated,
              config,
              callExecutor);
      subchannels.add(subchannel);
      node.subchannelCreated(subchannel);
      if (helper != this) {
        subchannel.shutdown(); // its balancer is already gone
      }
      return subchannel;
    }

    @Override
    public void updateBalancingState(
        ConnectivityState newState, LoadBalancer.SubchannelPicker picker) {
      java.util.Objects.requireNonNull(newState, "newState");
      java.util.Objects.requireNonNull(picker, "picker");
      sync.throwIfNotInThisSynchronizationContext();
      if (helper != this) {
        return;
      }
      calls.updatePicker(picker);
      state.set(newState);
    }

    @Override
    public void refreshNameResolution() {
      sync.execute(
          () -> {
            if (helper == this
                && resolver != null
                && (resolutionRetry == null || !resolutionRetry.isPending())) {
              resolver.refresh();
            }
          });
    }

    @Override
    public void resetConnectBackoff() {
      sync.execute(
          () -> {
            if (helper == this) {
              resetSubchannelBackoffs();
            }
          });
    }

    @Override
    public SynchronizationContext getSynchronizationContext() {
      return sync;
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return timer;
    }

    @Override
    public String getAuthority() {
      return authority;
    }

    @Override
    public String getChannelTarget() {
      return config.target();
    }

    @Override
    public MetricRecorder getMetricRecorder() {
      return config.metricRecorder();
    }
  }
}
