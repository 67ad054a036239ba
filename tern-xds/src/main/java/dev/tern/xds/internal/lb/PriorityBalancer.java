package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.Status;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code priority_experimental} (gRFC A56's failover): calls go to the highest priority whose child
 * is READY or IDLE, or is still connecting within its failover timeout. The next priority's child
 * is created only when every higher one has failed (see {@link PriorityChild}); when a higher one
 * becomes READY again, calls go back to it and the lower ones are deactivated. When every priority
 * has failed, the lowest one's picker (its errors) is used. Runs in the channel's synchronization
 * context; not thread-safe.
 */
final class PriorityBalancer extends LoadBalancer {
  private final Helper helper;
  private final Map<String, PriorityChild> children = new HashMap<>();
  private PriorityConfig config;
  private ResolvedAddresses addresses;
  private boolean updating;

  PriorityBalancer(Helper helper) {
    this.helper = helper;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
    config = (PriorityConfig) resolvedAddresses.getLoadBalancingPolicyConfig();
    addresses = resolvedAddresses;
    updating = true;
    try {
      for (PriorityChild child : List.copyOf(children.values())) {
        String name = child.balancer().name();
        if (config.priorities().contains(name)) {
          updateChild(child);
        } else {
          child.deactivate();
        }
      }
    } finally {
      updating = false;
    }
    choosePriority();
    return Status.OK;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (children.isEmpty()) {
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
      return;
    }
    children.values().forEach(child -> child.balancer().handleNameResolutionError(error));
  }

  @Override
  public void requestConnection() {
    children.values().forEach(child -> child.balancer().requestConnection());
  }

  @Override
  public void shutdown() {
    children.values().forEach(PriorityChild::shutdown);
    children.clear();
  }

  private void choosePriority() {
    if (updating || config == null) {
      return;
    }
    List<String> priorities = config.priorities();
    for (int i = 0; i < priorities.size(); i++) {
      PriorityChild child = children.get(priorities.get(i));
      if (child == null) {
        child =
            new PriorityChild(priorities.get(i), helper, this::choosePriority, children::remove);
        children.put(priorities.get(i), child);
        updating = true;
        try {
          updateChild(child);
        } finally {
          updating = false;
        }
      }
      child.reactivate();
      if (child.usable() || i == priorities.size() - 1) {
        use(i, child);
        return;
      }
    }
  }

  private void use(int index, PriorityChild chosen) {
    List<String> priorities = config.priorities();
    for (int i = index + 1; i < priorities.size(); i++) {
      PriorityChild lower = children.get(priorities.get(i));
      if (lower != null) {
        lower.deactivate();
      }
    }
    helper.updateBalancingState(chosen.balancer().state(), chosen.balancer().picker());
  }

  private void updateChild(PriorityChild child) {
    String name = child.balancer().name();
    PriorityConfig.Child childConfig = config.children().get(name);
    child.balancer().ignoreReresolution(childConfig.ignoreReresolutionRequests());
    child
        .balancer()
        .update(
            childConfig.policy(),
            addresses.toBuilder()
                .setAddresses(AddressPath.under(addresses.getAddresses(), name))
                .build());
  }
}
