package dev.tern.services.health;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.MetricRecorder;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

/**
 * A balancer (round_robin) whose subchannels are {@link HealthCheckedSubchannel}s: it sits between
 * the wrapped balancer and the channel, giving the wrapped one health-checked subchannels from
 * {@code createSubchannel} and turning them back into the channel's own in its pickers. The service
 * name comes from the service config's {@code healthCheckConfig.serviceName} ({@link
 * LoadBalancer#ATTR_HEALTH_CHECKING_CONFIG}); without one, subchannels report their connection's
 * state as is.
 *
 * <p>Not thread-safe: runs in the channel's synchronization context; its pickers are thread-safe.
 */
final class HealthCheckingLoadBalancer extends LoadBalancer {
  private final Helper channelHelper;
  private final long initialBackoffNanos;
  private final LoadBalancer delegate;
  private final List<HealthCheckedSubchannel> subchannels = new ArrayList<>();
  private String serviceName;

  /**
   * @param wrapped makes the wrapped balancer, given the helper it must use
   */
  HealthCheckingLoadBalancer(
      Helper channelHelper, Function<Helper, LoadBalancer> wrapped, long initialBackoffNanos) {
    this.channelHelper = channelHelper;
    this.initialBackoffNanos = initialBackoffNanos;
    this.delegate = wrapped.apply(new HealthHelper());
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
    String name = serviceName(resolvedAddresses.getAttributes().get(ATTR_HEALTH_CHECKING_CONFIG));
    if (!Objects.equals(name, serviceName)) {
      serviceName = name;
      for (HealthCheckedSubchannel subchannel : List.copyOf(subchannels)) {
        subchannel.setServiceName(name);
      }
    }
    return delegate.acceptResolvedAddresses(resolvedAddresses);
  }

  /** {@code healthCheckConfig.serviceName}, or null (no config, or no name in it). */
  private static String serviceName(Map<String, ?> healthCheckConfig) {
    if (healthCheckConfig == null) {
      return null;
    }
    // The channel's service config parser has already checked that it is a string.
    return healthCheckConfig.get("serviceName") instanceof String name ? name : null;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    delegate.handleNameResolutionError(error);
  }

  @Override
  public void requestConnection() {
    delegate.requestConnection();
  }

  @Override
  public void shutdown() {
    delegate.shutdown();
    for (HealthCheckedSubchannel subchannel : List.copyOf(subchannels)) {
      subchannel.shutdown(); // idempotent; the wrapped balancer has shut down its own already
    }
    subchannels.clear();
  }

  /** The wrapped balancer's view of the channel. */
  private final class HealthHelper extends Helper {
    @Override
    public Subchannel createSubchannel(CreateSubchannelArgs args) {
      HealthCheckedSubchannel subchannel =
          new HealthCheckedSubchannel(
              channelHelper.createSubchannel(args),
              channelHelper.getSynchronizationContext(),
              channelHelper.getScheduledExecutorService(),
              initialBackoffNanos,
              serviceName);
      subchannels.add(subchannel);
      subchannel.onShutdown(() -> subchannels.remove(subchannel));
      return subchannel;
    }

    @Override
    public void updateBalancingState(ConnectivityState state, SubchannelPicker picker) {
      channelHelper.updateBalancingState(state, new UnwrappingPicker(picker));
    }

    @Override
    public void refreshNameResolution() {
      channelHelper.refreshNameResolution();
    }

    @Override
    public void resetConnectBackoff() {
      channelHelper.resetConnectBackoff();
    }

    @Override
    public SynchronizationContext getSynchronizationContext() {
      return channelHelper.getSynchronizationContext();
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return channelHelper.getScheduledExecutorService();
    }

    @Override
    public String getAuthority() {
      return channelHelper.getAuthority();
    }

    @Override
    public String getChannelTarget() {
      return channelHelper.getChannelTarget();
    }

    @Override
    public MetricRecorder getMetricRecorder() {
      return channelHelper.getMetricRecorder();
    }
  }

  /**
   * The wrapped balancer's picker, with its health-checked subchannels replaced by the channel's
   * own (the channel sends calls only to subchannels it made). Thread-safe if the wrapped picker
   * is; allocates nothing for picks without a stream tracer.
   */
  static final class UnwrappingPicker extends SubchannelPicker {
    private final SubchannelPicker wrapped;

    UnwrappingPicker(SubchannelPicker wrapped) {
      this.wrapped = wrapped;
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      PickResult result = wrapped.pickSubchannel(args);
      if (result.getSubchannel() instanceof HealthCheckedSubchannel checked) {
        return result.getStreamTracerFactory() == null
            ? checked.pick()
            : PickResult.withSubchannel(checked.delegate(), result.getStreamTracerFactory());
      }
      return result;
    }

    @Override
    public String toString() {
      return "HealthChecking" + wrapped;
    }
  }
}
