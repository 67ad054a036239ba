package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/**
 * {@code weighted_target_experimental}: one child per target, each given the addresses under its
 * name; calls go to the READY targets in proportion to their weights. The aggregate state is READY
 * if a target is, else CONNECTING if one is, else IDLE if one is, else TRANSIENT_FAILURE. Runs in
 * the channel's synchronization context; not thread-safe.
 */
final class WeightedTargetBalancer extends LoadBalancer {
  private final Helper helper;
  private final LongUnaryOperator random;
  private final Map<String, ChildBalancer> children = new HashMap<>();
  private WeightedTargetConfig config;
  private boolean updating;

  WeightedTargetBalancer(Helper helper, LongUnaryOperator random) {
    this.helper = helper;
    this.random = random;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
    config = (WeightedTargetConfig) resolvedAddresses.getLoadBalancingPolicyConfig();
    updating = true;
    try {
      for (Iterator<ChildBalancer> it = children.values().iterator(); it.hasNext(); ) {
        ChildBalancer child = it.next();
        if (!config.targets().containsKey(child.name())) {
          child.shutdown();
          it.remove();
        }
      }
      for (Map.Entry<String, WeightedTargetConfig.Target> target : config.targets().entrySet()) {
        ChildBalancer child =
            children.computeIfAbsent(
                target.getKey(), name -> new ChildBalancer(name, helper, c -> updateState()));
        child.update(
            target.getValue().policy(),
            resolvedAddresses.toBuilder()
                .setAddresses(AddressPath.under(resolvedAddresses.getAddresses(), target.getKey()))
                .build());
      }
    } finally {
      updating = false;
    }
    updateState();
    return Status.OK;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (children.isEmpty()) {
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
      return;
    }
    children.values().forEach(child -> child.handleNameResolutionError(error));
  }

  @Override
  public void requestConnection() {
    children.values().forEach(ChildBalancer::requestConnection);
  }

  @Override
  public void shutdown() {
    children.values().forEach(ChildBalancer::shutdown);
    children.clear();
  }

  private void updateState() {
    if (updating || children.isEmpty()) {
      return;
    }
    for (ConnectivityState state :
        List.of(ConnectivityState.READY, ConnectivityState.CONNECTING, ConnectivityState.IDLE)) {
      List<WeightedPicker.Weighted> choices = inState(state);
      if (!choices.isEmpty()) {
        helper.updateBalancingState(
            state,
            state == ConnectivityState.CONNECTING
                ? new FixedResultPicker(PickResult.withNoResult())
                : new WeightedPicker(choices, random));
        return;
      }
    }
    helper.updateBalancingState(
        ConnectivityState.TRANSIENT_FAILURE,
        new WeightedPicker(inState(ConnectivityState.TRANSIENT_FAILURE), random));
  }

  private List<WeightedPicker.Weighted> inState(ConnectivityState state) {
    List<WeightedPicker.Weighted> choices = new ArrayList<>();
    for (Map.Entry<String, WeightedTargetConfig.Target> target : config.targets().entrySet()) {
      ChildBalancer child = children.get(target.getKey());
      if (child.state() == state) {
        choices.add(new WeightedPicker.Weighted(target.getValue().weight(), child.picker()));
      }
    }
    return choices;
  }
}
