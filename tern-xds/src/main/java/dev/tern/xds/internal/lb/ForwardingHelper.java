package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.MetricRecorder;
import dev.tern.SynchronizationContext;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A Helper that hands everything to another one: the base of the helpers these balancers give their
 * children, which override only what they change. Thread-safe if the delegate is.
 */
abstract class ForwardingHelper extends LoadBalancer.Helper {
  /** The helper to hand calls to. */
  abstract LoadBalancer.Helper delegate();

  @Override
  public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
    return delegate().createSubchannel(args);
  }

  @Override
  public void updateBalancingState(
      ConnectivityState newState, LoadBalancer.SubchannelPicker newPicker) {
    delegate().updateBalancingState(newState, newPicker);
  }

  @Override
  public void refreshNameResolution() {
    delegate().refreshNameResolution();
  }

  @Override
  public void resetConnectBackoff() {
    delegate().resetConnectBackoff();
  }

  @Override
  public SynchronizationContext getSynchronizationContext() {
    return delegate().getSynchronizationContext();
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return delegate().getScheduledExecutorService();
  }

  @Override
  public String getAuthority() {
    return delegate().getAuthority();
  }

  @Override
  public String getChannelTarget() {
    return delegate().getChannelTarget();
  }

  @Override
  public MetricRecorder getMetricRecorder() {
    return delegate().getMetricRecorder();
  }
}
