package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.MetricInstruments;
import dev.tern.Status;
import dev.tern.xds.XdsClient;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.lrs.LoadStatsRegistry;
import dev.tern.xds.internal.security.ClusterTls;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * {@code cluster_impl_experimental}: runs the cluster's endpoint-picking child and wraps each of
 * its pickers in a {@link ClusterImplPicker} (drops and circuit breaking). The count of calls in
 * flight is the process-wide one of the cluster (see {@link ClusterCallCounters}), held while the
 * balancer serves that cluster, so it spans every picker published here and every channel using the
 * cluster: a new picker does not forget calls still open.
 *
 * <p>Security (A29): it marks every endpoint's address group with the cluster's {@link ClusterTls}
 * ({@link XdsAttributes#UPSTREAM_TLS}), one object for the balancer's life, which {@code
 * XdsChannelCredentials} asks at each connection attempt; when the cluster's UpstreamTlsContext
 * changes it opens the new TLS on the xDS client's bootstrap in that object and closes the old one.
 * The endpoint policy below keeps its subchannels (their addresses did not change), and their next
 * connection attempts use the new settings; open connections keep theirs. So that a subchannel
 * failing under the old settings (a SAN matcher that did not match, a missing client certificate)
 * tries again now instead of after its back-off, a change resets the channel's connection back-off.
 *
 * <p>When the cluster reports load it holds a lease on its statistics in the channel's XdsClient,
 * which the client's LRS stream reports. Runs in the channel's synchronization context; not
 * thread-safe.
 */
final class ClusterImplBalancer extends LoadBalancer {
  private final Helper helper;
  private final LongUnaryOperator random;
  private final ChildBalancer child;
  private ClusterImplConfig config;
  private ClusterCallCounters.Lease counter;
  private ClusterTls tls; // from the first config on
  private LoadStatsRegistry.Lease loadStats; // while the cluster reports load
  private boolean updating;

  ClusterImplBalancer(Helper helper, LongUnaryOperator random) {
    this.helper = helper;
    this.random = random;
    this.child = new ChildBalancer("endpoints", helper, c -> publish());
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
    boolean first = config == null;
    config = (ClusterImplConfig) resolvedAddresses.getLoadBalancingPolicyConfig();
    if (counter == null || !counter.isFor(config.cluster(), config.edsServiceName())) {
      ClusterCallCounters.Lease previous = counter;
      counter = ClusterCallCounters.acquire(config.cluster(), config.edsServiceName());
      if (previous != null) {
        previous.release();
      }
    }
    if (tls == null) {
      tls = new ClusterTls(config.cluster());
    }
    XdsClient client = resolvedAddresses.getAttributes().get(XdsAttributes.XDS_CLIENT);
    boolean tlsChanged;
    try {
      tlsChanged = tls.update(config.upstreamTls(), client == null ? null : client.bootstrap());
    } catch (IllegalArgumentException | IllegalStateException e) {
      Status error =
          Status.UNAVAILABLE.withDescription(
              "cluster " + config.cluster() + ": TLS: " + e.getMessage());
      helper.updateBalancingState(
          ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
      return error;
    }
    updateLoadReporting(client);
    updating = true;
    Status status;
    try {
      status = child.update(config.childPolicy(), withTls(resolvedAddresses));
    } finally {
      updating = false;
    }
    if (tlsChanged && !first) {
      helper.resetConnectBackoff();
    }
    publish();
    return status;
  }

  /**
   * {@code resolvedAddresses} with each group marked with the cluster's TLS, and with the cluster's
   * name as its backend service (gRFC A89/A94's {@code grpc.lb.backend_service}).
   */
  private ResolvedAddresses withTls(ResolvedAddresses resolvedAddresses) {
    List<EquivalentAddressGroup> marked = new ArrayList<>();
    for (EquivalentAddressGroup group : resolvedAddresses.getAddresses()) {
      marked.add(
          new EquivalentAddressGroup(
              group.getAddresses(),
              group.getAttributes().toBuilder()
                  .set(XdsAttributes.UPSTREAM_TLS, tls)
                  .set(MetricInstruments.BACKEND_SERVICE_ATTRIBUTE, config.cluster())
                  .build()));
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
