package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.Status;
import dev.tern.xds.ResourceWatcher;
import dev.tern.xds.XdsClient;
import dev.tern.xds.XdsCluster;
import dev.tern.xds.XdsResourceType;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.lb.ClusterResolverConfig.DiscoveryMechanism;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * {@code cds_experimental}: watches its cluster (and, for an aggregate cluster, the clusters under
 * it) and runs a {@code cluster_resolver_experimental} child over the leaf clusters in order. A
 * cluster that does not exist, a cycle, a tree too deep or an empty aggregate puts the channel in
 * TRANSIENT_FAILURE with UNAVAILABLE saying which; an error from the control plane after a good
 * value keeps the value. The XdsClient calls watchers in its own context; every call is moved into
 * the channel's synchronization context, where all state lives. Not thread-safe otherwise.
 */
final class CdsBalancer extends LoadBalancer {
  private final Helper helper;
  private final Map<String, ClusterWatch> watches = new HashMap<>();
  private XdsClient client;
  private String root;
  private ResolvedAddresses resolvedAddresses;
  private LoadBalancer resolver;
  private ClusterResolverConfig resolverConfig;
  private boolean shutdown;

  CdsBalancer(Helper helper) {
    this.helper = helper;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses addresses) {
    XdsClient newClient = addresses.getAttributes().get(XdsAttributes.XDS_CLIENT);
    if (newClient == null) {
      Status error =
          Status.UNAVAILABLE.withDescription(
              CdsProvider.NAME + ": no XdsClient in the resolver's attributes");
      fail(error);
      return error;
    }
    String newRoot = ((CdsConfig) addresses.getLoadBalancingPolicyConfig()).cluster();
    if (newClient != client || !newRoot.equals(root)) {
      cancelWatches();
      stopResolver();
      client = newClient;
      root = newRoot;
    }
    resolvedAddresses = addresses;
    update();
    return Status.OK;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (resolver != null) {
      resolver.handleNameResolutionError(error);
    } else {
      fail(error);
    }
  }

  @Override
  public void requestConnection() {
    if (resolver != null) {
      resolver.requestConnection();
    }
  }

  @Override
  public void shutdown() {
    shutdown = true;
    cancelWatches();
    stopResolver();
  }

  private void update() {
    if (shutdown || root == null) {
      return;
    }
    Map<String, ClusterTree.Known> known = new HashMap<>();
    watches.forEach((name, watch) -> known.put(name, watch.known));
    ClusterTree.Outcome outcome = ClusterTree.flatten(root, known);
    for (String name : outcome.reached()) {
      if (!watches.containsKey(name)) {
        ClusterWatch watch = new ClusterWatch(name);
        watches.put(name, watch);
        client.watch(XdsResourceType.CLUSTER, name, watch);
      }
    }
    for (Iterator<ClusterWatch> it = watches.values().iterator(); it.hasNext(); ) {
      ClusterWatch watch = it.next();
      if (!outcome.reached().contains(watch.name)) {
        client.cancelWatch(XdsResourceType.CLUSTER, watch.name, watch);
        it.remove();
      }
    }
    if (outcome.error() != null) {
      stopResolver();
      fail(outcome.error());
      return;
    }
    if (outcome.pending()) {
      return;
    }
    ClusterResolverConfig config;
    try {
      config = resolverConfig(outcome.leaves(), watches.get(root).known.value());
    } catch (IllegalArgumentException e) {
      stopResolver();
      fail(Status.UNAVAILABLE.withDescription("cluster " + root + ": " + e.getMessage()));
      return;
    }
    if (resolver == null) {
      resolver = new ClusterResolverProvider().newLoadBalancer(helper);
    } else if (config.equals(resolverConfig)) {
      return;
    }
    resolverConfig = config;
    resolver.acceptResolvedAddresses(
        resolvedAddresses.toBuilder().setLoadBalancingPolicyConfig(config).build());
  }

  /** The cluster resolver's config: one mechanism per leaf, the root cluster's lb policy. */
  static ClusterResolverConfig resolverConfig(List<XdsCluster> leaves, XdsCluster root) {
    List<DiscoveryMechanism> mechanisms = new ArrayList<>();
    for (XdsCluster leaf : leaves) {
      mechanisms.add(
          new DiscoveryMechanism(
              leaf.name(),
              leaf.type(),
              leaf.edsServiceName(),
              leaf.dnsHostPort(),
              leaf.maxConcurrentRequests(),
              leaf.outlierDetection(),
              leaf.upstreamTls(),
              leaf.reportLoad()));
    }
    return new ClusterResolverConfig(mechanisms, EndpointPolicies.of(root.lbPolicy()));
  }

  private void stopResolver() {
    if (resolver != null) {
      resolver.shutdown();
      resolver = null;
      resolverConfig = null;
    }
  }

  private void cancelWatches() {
    for (ClusterWatch watch : watches.values()) {
      client.cancelWatch(XdsResourceType.CLUSTER, watch.name, watch);
    }
    watches.clear();
  }

  private void fail(Status error) {
    helper.updateBalancingState(
        ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
  }

  /** One cluster's watcher and what it has heard, kept in the channel's context. */
  private final class ClusterWatch implements ResourceWatcher<XdsCluster> {
    final String name;
    ClusterTree.Known known = new ClusterTree.Known(null, false);

    ClusterWatch(String name) {
      this.name = name;
    }

    @Override
    public void onChanged(XdsCluster cluster) {
      inContext(() -> known = new ClusterTree.Known(cluster, false));
    }

    @Override
    public void onError(Status error) {
      // The last good value (if any) still holds; with none, the channel hears why it waits.
      helper
          .getSynchronizationContext()
          .execute(
              () -> {
                if (watches.get(name) == this && known.value() == null && resolver == null) {
                  fail(
                      Status.UNAVAILABLE.withDescription(
                          "cluster " + name + ": " + error.getDescription()));
                }
              });
    }

    @Override
    public void onResourceDoesNotExist(String resourceName) {
      inContext(() -> known = new ClusterTree.Known(null, true));
    }

    private void inContext(Runnable change) {
      helper
          .getSynchronizationContext()
          .execute(
              () -> {
                if (watches.get(name) == this) {
                  change.run();
                  update();
                }
              });
    }
  }
}
