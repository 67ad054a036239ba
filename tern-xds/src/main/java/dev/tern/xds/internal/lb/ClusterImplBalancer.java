package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.Status;
import dev.tern.xds.XdsClient;
import dev.tern.xds.XdsTlsContext;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.lrs.LoadStatsRegistry;
import dev.tern.xds.internal.security.UpstreamTls;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongUnaryOperator;

/**
 * {@code cluster_impl_experimental}: runs the cluster's endpoint-picking child and wraps each of
 * its pickers in a {@link ClusterImplPicker} (drops and circuit breaking). The count of calls in
 * flight is the process-wide one of the cluster (see {@link ClusterCallCounters}), held while the
 * balancer serves that cluster, so it spans every picker published here and every channel using the
 * cluster: a new picker does not forget calls still open. When the cluster has TLS (A29) it opens
 * the cluster's {@link UpstreamTls} on the xDS client's bootstrap and marks every endpoint's
 * address group with it ({@link XdsAttributes#UPSTREAM_TLS}), for {@code XdsChannelCredentials}; it
 * closes it when the TLS changes or the balancer shuts down. When the cluster reports load it holds
 * a lease on its statistics in the channel's XdsClient, which the client's LRS stream reports. Runs
 * in the channel's synchronization context; not thread-safe.
 */
final class ClusterImplBalancer extends LoadBalancer {
  private final Helper helper;
  private final LongUnaryOperator random;
  private final ChildBalancer child;
  private ClusterImplConfig config;
  private ClusterCallCounters.Lease counter;
  private UpstreamTls tls;
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
    try {
      updateTls(resolvedAddresses);
    } catch (IllegalArgumentException | IllegalStateException e) {
      Status error =
          Status.UNAVAILABLE.withDescription(
              "cluster " + config.cluster() + ": TLS: " + e.getMessage());
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
      return error;
    }
    updateLoadReporting(resolvedAddresses.getAttributes().get(XdsAttributes.XDS_CLIENT));
    updating = true;
    Status status;
    try {
      status = child.update(config.childPolicy(), withTls(resolvedAddresses));
    } finally {
      updating = false;
    }
    publish();
    return status;
  }

  /** Opens the cluster's TLS if it changed, closing the previous one. */
  private void updateTls(ResolvedAddresses resolvedAddresses) {
    XdsTlsContext wanted = config.upstreamTls();
    if (Objects.equals(wanted, tls == null ? null : tls.context())) {
      return;
    }
    UpstreamTls previous = tls;
    tls = null;
    if (previous != null) {
      previous.close();
    }
    if (wanted != null) {
      XdsClient client = resolvedAddresses.getAttributes().get(XdsAttributes.XDS_CLIENT);
      if (client == null) {
        throw new IllegalStateException("no xDS client to take certificate providers from");
      }
      tls = UpstreamTls.open(client.bootstrap(), wanted);
    }
  }

  /** {@code resolvedAddresses} with each group marked with the cluster's TLS, if any. */
  private ResolvedAddresses withTls(ResolvedAddresses resolvedAddresses) {
    if (tls == null) {
      return resolvedAddresses;
    }
    List<EquivalentAddressGroup> marked = new ArrayList<>();
    for (EquivalentAddressGroup group : resolvedAddresses.getAddresses()) {
      marked.add(
          new EquivalentAddressGroup(
              group.getAddresses(),
              group.getAttributes().toBuilder().set(XdsAttributes.UPSTREAM_TLS, tls).build()));
    }
    return resolvedAddresses.toBuilder().setAddresses(marked).build();
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
    if (tls != null) {
      tls.close();
      tls = null;
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
