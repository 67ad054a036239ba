package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.ResolvedAddresses;
import dev.tern.LoadBalancer.SubchannelPicker;
import dev.tern.Status;
import java.util.function.Consumer;

/**
 * One child of a parent balancer (a priority, a weighted target): the child's balancer, created
 * through its provider with a helper that hands everything to the parent's helper except the
 * child's state and picker, which it keeps here and reports to the parent through {@code onUpdate}.
 * A child whose policy changes is replaced. Used only in the channel's synchronization context; not
 * thread-safe.
 */
final class ChildBalancer {
  private final String name;
  private final LoadBalancer.Helper parentHelper;
  private final Consumer<ChildBalancer> onUpdate;
  private ChildPolicy policy;
  private LoadBalancer balancer;
  private ConnectivityState state = ConnectivityState.CONNECTING;
  private SubchannelPicker picker = new LoadBalancer.FixedResultPicker(PickResult.withNoResult());
  private boolean shutdown;
  private boolean ignoreReresolution;
  private Runnable onRefresh = () -> {};

  ChildBalancer(String name, LoadBalancer.Helper parentHelper, Consumer<ChildBalancer> onUpdate) {
    this.name = name;
    this.parentHelper = parentHelper;
    this.onUpdate = onUpdate;
  }

  String name() {
    return name;
  }

  /** Whether the child's requests to re-resolve stop here instead of reaching the channel. */
  void ignoreReresolution(boolean ignore) {
    ignoreReresolution = ignore;
  }

  /** Runs {@code hook} too whenever the child asks to re-resolve (and it is not ignored). */
  void onRefresh(Runnable hook) {
    onRefresh = hook;
  }

  ConnectivityState state() {
    return state;
  }

  SubchannelPicker picker() {
    return picker;
  }

  /** Gives the child its addresses and config, first creating (or replacing) its balancer. */
  Status update(ChildPolicy newPolicy, ResolvedAddresses addresses) {
    if (balancer == null || !newPolicy.name().equals(policy.name())) {
      if (balancer != null) {
        balancer.shutdown();
      }
      balancer = newPolicy.provider().newLoadBalancer(new Helper());
    }
    policy = newPolicy;
    return balancer.acceptResolvedAddresses(
        addresses.toBuilder().setLoadBalancingPolicyConfig(newPolicy.config()).build());
  }

  void handleNameResolutionError(Status error) {
    if (balancer != null) {
      balancer.handleNameResolutionError(error);
    }
  }

  void requestConnection() {
    if (balancer != null) {
      balancer.requestConnection();
    }
  }

  void shutdown() {
    shutdown = true;
    if (balancer != null) {
      balancer.shutdown();
      balancer = null;
    }
  }

  @Override
  public String toString() {
    return "ChildBalancer{" + name + ", " + state + "}";
  }

  /** The child's helper: the parent's, but keeping the child's state and picker here. */
  private final class Helper extends ForwardingHelper {
    @Override
    LoadBalancer.Helper delegate() {
      return parentHelper;
    }

    @Override
    public void updateBalancingState(ConnectivityState newState, SubchannelPicker newPicker) {
      if (shutdown) {
        return;
      }
      state = newState;
      picker = newPicker;
      onUpdate.accept(ChildBalancer.this);
    }

    @Override
    public void refreshNameResolution() {
      if (!ignoreReresolution) {
        onRefresh.run();
        parentHelper.refreshNameResolution();
      }
    }
  }
}
