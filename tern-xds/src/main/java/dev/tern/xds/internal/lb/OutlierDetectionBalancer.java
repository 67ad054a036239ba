package dev.tern.xds.internal.lb;

import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.SynchronizationContext.ScheduledHandle;
import dev.tern.xds.XdsCluster;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;

/**
 * {@code outlier_detection_experimental} (gRFC A50): runs a child policy, counts each call's result
 * per address, and every {@code interval} ejects the addresses the configured algorithms single out
 * ({@link OutlierEjection}); the child sees an ejected address's subchannels in TRANSIENT_FAILURE
 * ({@link OutlierSubchannel}) and so stops picking them. An address returns after {@code
 * baseEjectionTime} times its multiplier (capped by {@code max(base, maxEjectionTime)}); the
 * multiplier grows with each ejection and shrinks by one each interval the address is not ejected.
 * The interval timer runs on the Helper's scheduler, in its synchronization context.
 *
 * <p>Runs in the channel's synchronization context; not thread-safe. Only the counters it shares
 * with its pickers are touched from other threads.
 */
final class OutlierDetectionBalancer extends LoadBalancer {
  private final Helper helper;
  private final LongSupplier nanoTime;
  private final IntUnaryOperator random;
  private final ChildBalancer child;
  private final Map<SocketAddress, OutlierEndpoint> endpoints = new HashMap<>();
  private final Set<OutlierSubchannel> subchannels = new LinkedHashSet<>();
  private OutlierDetectionConfig config;
  private ScheduledHandle timer;
  private long timerStartNanos;
  private boolean updating;

  /**
   * @param nanoTime the clock ejection times are measured by
   * @param random a number in [0, bound) for the enforcement draws
   */
  OutlierDetectionBalancer(Helper helper, LongSupplier nanoTime, IntUnaryOperator random) {
    this.helper = helper;
    this.nanoTime = nanoTime;
    this.random = random;
    this.child = new ChildBalancer("outlier-detection child", new WrappingHelper(), c -> publish());
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
    config = (OutlierDetectionConfig) resolvedAddresses.getLoadBalancingPolicyConfig();
    updateEndpoints(resolvedAddresses.getAddresses());
    scheduleTimer();
    updating = true;
    Status status;
    try {
      status = child.update(config.childPolicy(), resolvedAddresses);
    } finally {
      updating = false;
    }
    publish();
    return status;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    child.handleNameResolutionError(error);
  }

  @Override
  public void requestConnection() {
    child.requestConnection();
  }

  @Override
  public void shutdown() {
    cancelTimer();
    child.shutdown();
  }

  /** One entry per address given; entries for addresses no longer given go, returning them. */
  private void updateEndpoints(List<EquivalentAddressGroup> groups) {
    Set<SocketAddress> given = new HashSet<>();
    for (EquivalentAddressGroup group : groups) {
      given.addAll(group.getAddresses());
    }
    endpoints.entrySet().removeIf(entry -> !given.contains(entry.getKey()));
    for (SocketAddress address : given) {
      endpoints.computeIfAbsent(address, a -> new OutlierEndpoint());
    }
    for (OutlierSubchannel subchannel : List.copyOf(subchannels)) {
      subchannel.relink();
    }
  }

  /**
   * A50's timer rules: with no algorithm on, no timer and every address returned; the first time,
   * counts start from zero and the first sweep is an interval away; after that, a new config keeps
   * the interval's phase.
   */
  private void scheduleTimer() {
    XdsCluster.OutlierDetection detection = config.detection();
    if (!config.counting()) {
      cancelTimer();
      for (OutlierEndpoint endpoint : endpoints.values()) {
        endpoint.uneject();
      }
      return;
    }
    long interval = detection.interval().toNanos();
    long delay = interval;
    if (timer == null) {
      timerStartNanos = nanoTime.getAsLong();
      for (OutlierEndpoint endpoint : endpoints.values()) {
        endpoint.counter().reset();
      }
    } else {
      timer.cancel();
      delay = Math.max(0, interval - (nanoTime.getAsLong() - timerStartNanos));
    }
    schedule(delay);
  }

  private void schedule(long delayNanos) {
    SynchronizationContext context = helper.getSynchronizationContext();
    ScheduledExecutorService scheduler = helper.getScheduledExecutorService();
    timer = context.schedule(this::sweep, delayNanos, TimeUnit.NANOSECONDS, scheduler);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  /** The end of an interval: swap the counts, run the algorithms, return addresses due back. */
  private void sweep() {
    long now = nanoTime.getAsLong();
    timerStartNanos = now;
    XdsCluster.OutlierDetection detection = config.detection();
    for (OutlierEndpoint endpoint : endpoints.values()) {
      endpoint.counter().swap();
    }
    if (!endpoints.isEmpty()) {
      if (detection.successRate() != null) {
        OutlierEjection.successRate(
            endpoints.values(),
            detection.successRate(),
            detection.maxEjectionPercent(),
            random,
            now);
      }
      if (detection.failurePercentage() != null) {
        OutlierEjection.failurePercentage(
            endpoints.values(),
            detection.failurePercentage(),
            detection.maxEjectionPercent(),
            random,
            now);
      }
    }
    long base = detection.baseEjectionTime().toNanos();
    long max = detection.maxEjectionTime().toNanos();
    for (OutlierEndpoint endpoint : endpoints.values()) {
      endpoint.endOfSweep(now, base, max);
    }
    schedule(detection.interval().toNanos());
  }

  private void publish() {
    if (updating || config == null) {
      return;
    }
    helper.updateBalancingState(
        child.state(), new OutlierPicker(child.picker(), config.counting()));
  }

  /** The entry of a subchannel with exactly one address that this balancer was given, else null. */
  private OutlierEndpoint lookup(List<EquivalentAddressGroup> groups) {
    if (groups.size() != 1 || groups.get(0).getAddresses().size() != 1) {
      return null;
    }
    return endpoints.get(groups.get(0).getAddresses().get(0));
  }

  /** The child's parent helper: the channel's, but every subchannel wrapped. */
  private final class WrappingHelper extends ForwardingHelper {
    @Override
    Helper delegate() {
      return helper;
    }

    @Override
    public Subchannel createSubchannel(CreateSubchannelArgs args) {
      OutlierSubchannel subchannel =
          new OutlierSubchannel(
              helper.createSubchannel(args),
              OutlierDetectionBalancer.this::lookup,
              subchannels::remove);
      subchannels.add(subchannel);
      return subchannel;
    }
  }
}
