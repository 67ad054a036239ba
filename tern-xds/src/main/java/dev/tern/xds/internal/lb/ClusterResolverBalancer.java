package dev.tern.xds.internal.lb;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.NameResolverRegistry;
import dev.tern.Status;
import dev.tern.xds.XdsClient;
import dev.tern.xds.XdsCluster;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.lb.ClusterResolverConfig.DiscoveryMechanism;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code cluster_resolver_experimental}: runs one discovery mechanism per leaf cluster (an EDS
 * watch through the {@link XdsClient} in the attributes, or a LOGICAL_DNS resolution) and, once
 * each has reported, gives a {@code priority_experimental} child the priorities of all of them in
 * order ({@link PriorityTree}). Mechanisms that failed add nothing; when none has a priority the
 * channel gets TRANSIENT_FAILURE with every mechanism's error. Runs in the channel's
 * synchronization context; not thread-safe.
 */
final class ClusterResolverBalancer extends LoadBalancer {
  private final Helper helper;
  private final NameResolverRegistry dnsRegistry;
  private Map<DiscoveryMechanism, DiscoveryMechanismWatch> watches = new LinkedHashMap<>();
  private ClusterResolverConfig config;
  private XdsClient watchedClient;
  private ResolvedAddresses resolvedAddresses;
  private ChildBalancer priority;
  private boolean shutdown;

  ClusterResolverBalancer(Helper helper, NameResolverRegistry dnsRegistry) {
    this.helper = helper;
    this.dnsRegistry = dnsRegistry;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses addresses) {
    XdsClient client = addresses.getAttributes().get(XdsAttributes.XDS_CLIENT);
    if (client == null) {
      Status error =
          Status.UNAVAILABLE.withDescription(
              ClusterResolverProvider.NAME + ": no XdsClient in the resolver's attributes");
      fail(error);
      return error;
    }
    if (client != watchedClient) {
      watches.values().forEach(DiscoveryMechanismWatch::shutdown);
      watches.clear();
      watchedClient = client;
    }
    config = (ClusterResolverConfig) addresses.getLoadBalancingPolicyConfig();
    resolvedAddresses = addresses;
    Map<DiscoveryMechanism, DiscoveryMechanismWatch> next = new LinkedHashMap<>();
    for (DiscoveryMechanism mechanism : config.mechanisms()) {
      DiscoveryMechanismWatch watch = watches.remove(mechanism);
      next.put(mechanism, watch != null ? watch : start(mechanism, client));
    }
    watches.values().forEach(DiscoveryMechanismWatch::shutdown);
    watches = next;
    rebuild();
    return Status.OK;
  }

  @Override
  public void handleNameResolutionError(Status error) {
    if (priority != null) {
      priority.handleNameResolutionError(error);
    } else {
      fail(error);
    }
  }

  @Override
  public void requestConnection() {
    if (priority != null) {
      priority.requestConnection();
    }
  }

  @Override
  public void shutdown() {
    shutdown = true;
    watches.values().forEach(DiscoveryMechanismWatch::shutdown);
    watches.clear();
    if (priority != null) {
      priority.shutdown();
      priority = null;
    }
  }

  private DiscoveryMechanismWatch start(DiscoveryMechanism mechanism, XdsClient client) {
    if (mechanism.type() == XdsCluster.Type.LOGICAL_DNS) {
      return new DnsWatch(mechanism.dnsHostname(), dnsRegistry, helper, this::rebuild);
    }
    return new EdsWatch(
        client, mechanism.edsResourceName(), helper.getSynchronizationContext(), this::rebuild);
  }

  private void rebuild() {
    if (shutdown || config == null) {
      return;
    }
    List<PriorityTree.Found> found = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    for (Map.Entry<DiscoveryMechanism, DiscoveryMechanismWatch> entry : watches.entrySet()) {
      Resolution resolution = entry.getValue().resolution();
      if (resolution == null) {
        return; // wait until every mechanism has reported once
      }
      if (resolution.error() != null) {
        errors.add(resolution.error().getDescription());
      } else {
        found.add(new PriorityTree.Found(entry.getKey(), resolution));
      }
    }
    PriorityTree tree = PriorityTree.build(found, config.endpointPolicy());
    if (tree == null) {
      if (priority != null) {
        priority.shutdown();
        priority = null;
      }
      List<String> clusters =
          config.mechanisms().stream().map(DiscoveryMechanism::cluster).toList();
      fail(
          Status.UNAVAILABLE.withDescription(
              "no endpoints for clusters " + clusters + (errors.isEmpty() ? "" : ": " + errors)));
      return;
    }
    if (priority == null) {
      priority =
          new ChildBalancer(
              "priorities", helper, c -> helper.updateBalancingState(c.state(), c.picker()));
      // A subchannel asking to re-resolve also refreshes the LOGICAL_DNS resolutions.
      priority.onRefresh(() -> watches.values().forEach(DiscoveryMechanismWatch::refresh));
    }
    priority.update(
        new ChildPolicy(new PriorityProvider(), tree.config()),
        resolvedAddresses.toBuilder().setAddresses(tree.addresses()).build());
  }

  private void fail(Status error) {
    helper.updateBalancingState(
        ConnectivityState.TRANSIENT_FAILURE, new FixedResultPicker(PickResult.withError(error)));
  }
}
