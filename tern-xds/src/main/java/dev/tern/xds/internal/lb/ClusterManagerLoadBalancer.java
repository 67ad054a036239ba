package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.Status;
import dev.tern.xds.internal.XdsAttributes;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The cluster manager (gRFC A28): one child balancer per child of its config (one per cluster the
 * routes use, {@code "cluster:<name>"}), each made through the registry by its policy name and
 * working through a helper of its own; its picker sends each call to the child named by the call's
 * {@link XdsAttributes#CLUSTER_SELECTION} option, which the xds resolver's selector set.
 *
 * <p>The channel's state is READY if any child is READY, else CONNECTING if any is CONNECTING, else
 * IDLE if any is IDLE, else TRANSIENT_FAILURE (grpc-java's order).
 *
 * <p>A child that leaves the config is shut down at once. grpc-java keeps it for 15 minutes
 * instead; Tern need not, because the xds resolver keeps a cluster in the config while any call
 * that chose it is still picking (until its response headers or its close), so no pick can ask for
 * a child already gone; calls already on a connection finish, as a subchannel shut down lets them.
 *
 * <p>Threading: the channel's synchronization context, as every balancer; the picker is immutable.
 */
final class ClusterManagerLoadBalancer extends LoadBalancer {
  private final Helper helper;
  private final Map<String, Child> children = new LinkedHashMap<>();
  private boolean updating;
  private boolean shutdown;

  ClusterManagerLoadBalancer(Helper helper) {
    this.helper = helper;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
    ClusterManagerConfig config =
        (ClusterManagerConfig) resolvedAddresses.getLoadBalancingPolicyConfig();
    updating = true;
    try {
      for (Iterator<Map.Entry<String, Child>> it = children.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, Child> e = it.next();
        ClusterManagerConfig.Child wanted = config.children().get(e.getKey());
        if (wanted == null || !wanted.policyName().equals(e.getValue().policyName)) {
          e.getValue().shutdown();
          it.remove();
        }
      }
      for (Map.Entry<String, ClusterManagerConfig.Child> e : config.children().entrySet()) {
        Child child = children.get(e.getKey());
        if (child == null) {
          child = new Child(e.getKey(), e.getValue());
          children.put(e.getKey(), child);
        }
        child.balancer.acceptResolvedAddresses(
            resolvedAddresses.toBuilder()
                .setLoadBalancingPolicyConfig(e.getValue().config())
                .build());
      }
    } finally {
      updating = false;
    }
    updateOverallState(null);
    return Status.OK;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (children.isEmpty()) {
      updateOverallState(error);
      return;
    }
    updating = true;
    try {
      for (Child child : children.values()) {
        child.balancer.handleNameResolutionError(error);
      }
    } finally {
      updating = false;
    }
    updateOverallState(null);
  }

  @Override
  public void requestConnection() {
    for (Child child : children.values()) {
      child.balancer.requestConnection();
    }
  }

  @Override
  public void shutdown() {
    shutdown = true;
    for (Child child : children.values()) {
      child.shutdown();
    }
    children.clear();
  }

  /** Publishes the aggregate state; {@code error} is the picker's error when there is no child. */
  private void updateOverallState(Status error) {
    if (updating || shutdown) {
      return;
    }
    if (children.isEmpty()) {
      Status status =
          error != null
              ? error
              : Status.UNAVAILABLE.withDescription(
                  "xds cluster manager: no clusters in the config");
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(status)));
      return;
    }
    Map<String, SubchannelPicker> pickers = new HashMap<>();
    boolean ready = false;
    boolean connecting = false;
    boolean idle = false;
    for (Child child : children.values()) {
      pickers.put(child.name, child.picker);
      switch (child.state) {
        case READY -> ready = true;
        case CONNECTING -> connecting = true;
        case IDLE -> idle = true;
        default -> {}
      }
    }
    ConnectivityState state =
        ready
            ? ConnectivityState.READY
            : connecting
                ? ConnectivityState.CONNECTING
                : idle ? ConnectivityState.IDLE : ConnectivityState.TRANSIENT_FAILURE;
    helper.updateBalancingState(state, new ClusterPicker(pickers));
  }

  /** Routes each pick to the picker of the child the call's route chose. */
  static final class ClusterPicker extends SubchannelPicker {
    private final Map<String, SubchannelPicker> pickers;

    ClusterPicker(Map<String, SubchannelPicker> pickers) {
      this.pickers = Map.copyOf(pickers);
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      String selection = args.getCallOptions().getOption(XdsAttributes.CLUSTER_SELECTION);
      if (selection == null) {
        return PickResult.withError(
            Status.UNAVAILABLE.withDescription(
                "xds cluster manager: the call has no cluster selection (was it routed by the"
                    + " xds resolver?)"));
      }
      SubchannelPicker picker = pickers.get(selection);
      if (picker == null) {
        return PickResult.withError(
            Status.UNAVAILABLE.withDescription(
                "xds cluster manager: no child for \"" + selection + "\""));
      }
      return picker.pickSubchannel(args);
    }

    @Override
    public String toString() {
      return "ClusterPicker" + pickers.keySet();
    }
  }

  private final class Child {
    final String name;
    final String policyName;
    final LoadBalancer balancer;
    ConnectivityState state = ConnectivityState.CONNECTING;
    SubchannelPicker picker = new FixedResultPicker(PickResult.withNoResult());
    boolean childShutdown;

    Child(String name, ClusterManagerConfig.Child config) {
      this.name = name;
      this.policyName = config.policyName();
      this.balancer = config.provider().newLoadBalancer(new ChildHelper(this));
    }

    void shutdown() {
      childShutdown = true;
      balancer.shutdown();
    }
  }

  /** A child's helper: the channel's, except that its state goes to the cluster manager. */
  private final class ChildHelper extends ForwardingHelper {
    private final Child child;

    ChildHelper(Child child) {
      this.child = child;
    }

    @Override
    Helper delegate() {
      return helper;
    }

    @Override
    public void updateBalancingState(ConnectivityState state, SubchannelPicker picker) {
      if (child.childShutdown || children.get(child.name) != child) {
        return;
      }
      child.state = state;
      child.picker = picker;
      updateOverallState(null);
    }

    @Override
    public String toString() {
      return "ClusterManager.ChildHelper{" + child.name + "}";
    }
  }
}
