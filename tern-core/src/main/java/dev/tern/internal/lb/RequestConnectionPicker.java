package dev.tern.internal.lb;

import dev.tern.LoadBalancer;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.SubchannelPicker;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The picker of an IDLE balancer: the first pick asks the balancer (in its synchronization context)
 * to connect, and every call waits for the next picker. Thread-safe.
 */
final class RequestConnectionPicker extends SubchannelPicker {
  private final LoadBalancer balancer;
  private final LoadBalancer.Helper helper;
  private final AtomicBoolean requested = new AtomicBoolean();

  RequestConnectionPicker(LoadBalancer balancer, LoadBalancer.Helper helper) {
    this.balancer = balancer;
    this.helper = helper;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    if (requested.compareAndSet(false, true)) {
      helper.getSynchronizationContext().execute(balancer::requestConnection);
    }
    return PickResult.withNoResult();
  }

  @Override
  public String toString() {
    return "RequestConnectionPicker";
  }
}
