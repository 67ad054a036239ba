package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancer;
import dev.tern.Status;
import dev.tern.xds.XdsClient;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.lrs.LoadStatsRegistry;
import java.util.function.LongUnaryOperator;

/**
 * {@code cluster_impl_experimental}: runs the cluster's endpoint-picking child and wraps each of
 * its pickers in a {@link ClusterImplPicker} (drops and circuit breaking). The count of calls in
 * flight is the process-wide one of the cluster (see {@link ClusterCallCounters}), held while the
 * balancer serves that cluster, so it spans every picker published here and every channel using the
 * cluster: a new picker does not forget calls still open. When the cluster reports load it holds a
 * lease on its statistics in the channel's XdsClient, which the client's LRS stream reports. Runs
 * in the channel's synchronization context; not thread-safe.
 */
final class ClusterImplBalancer extends LoadBalancer {
  private final Helper helper;
  private final LongUnaryOperator random;
  private final ChildBalancer child;
  private ClusterImplConfig config;
  private ClusterCallCounters.Lease counter;
  private LoadStatsRegistry.Lease loadStats; // while the cluster reports load
  private boolean updating;

  ClusterImplBalancer(Helper helper, LongUnaryOperator random) {
    this.helper = helper;
    this.random = random;
    this.child = new ChildBalancer("endpoints", helper, c -> publish());
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
    config = (ClusterImplConfig) resolvedAddresses.getLoadBalancingPolicyConfig();
    if (counter == null || !counter.isFor(config.cluster(), config.edsServiceName())) {
      ClusterCallCounters.Lease previous = counter;
      counter = ClusterCallCounters.acquire(config.cluster(), config.edsServiceName());
      if (previous != null) {
        previous.release();
      }
    }
    updateLoadReporting(resolvedAddresses.getAttributes().get(XdsAttributes.XDS_CLIENT));
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
    child.shutdown();
    if (counter != null) {
      counter.release();
    }
    if (loadStats != null) {
      loadStats.release();
      loadStats = null;
    }
  }

  /** Takes (or keeps, or gives back) the cluster's lease on the client's load statistics. */
  private void updateLoadReporting(XdsClient client) {
    boolean wanted = config.reportLoad() && client != null;
    if (loadStats != null
        && (!wanted
            || loadStats.registry() != client.loadStats()
            || !loadStats.isFor(config.cluster(), config.edsServiceName()))) {
      loadStats.release();
      loadStats = null;
    }
    if (wanted && loadStats == null) {
      loadStats = client.loadStats().acquire(config.cluster(), config.edsServiceName());
    }
  }

  private void publish() {
    if (updating || config == null) {
      return;
    }
    helper.updateBalancingState(
        child.state(),
        new ClusterImplPicker(
            config,
            child.picker(),
            counter.inFlight(),
            random,
            loadStats == null ? null : loadStats.stats()));
  }
}
