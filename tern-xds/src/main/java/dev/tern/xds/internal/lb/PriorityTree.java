package dev.tern.xds.internal.lb;

import dev.tern.EquivalentAddressGroup;
import dev.tern.xds.internal.lb.ClusterResolverConfig.DiscoveryMechanism;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The priority balancer's config and addresses made from the discovery mechanisms' results: each
 * (mechanism, priority) becomes a child {@code <cluster>[child<N>]} running {@code
 * cluster_impl_experimental} (the cluster's drops and circuit breaker) over {@code
 * weighted_target_experimental} with one target per locality, each running the endpoint policy (for
 * {@code ring_hash_experimental}, over that policy directly: one ring for all localities); when the
 * cluster has outlier detection, {@code outlier_detection_experimental} over all that (gRFC A50:
 * per priority, above cluster_impl). Every endpoint's address group carries its path (child,
 * locality) and its locality's weight. Immutable; thread-safe.
 */
record PriorityTree(PriorityConfig config, List<EquivalentAddressGroup> addresses) {
  /** One mechanism and what it found. */
  record Found(DiscoveryMechanism mechanism, Resolution resolution) {}

  static String childName(String cluster, int priority) {
    return cluster + "[child" + priority + "]";
  }

  /** The tree, or null when no mechanism found any priority. */
  static PriorityTree build(List<Found> found, ChildPolicy endpointPolicy) {
    List<String> priorities = new ArrayList<>();
    Map<String, PriorityConfig.Child> children = new LinkedHashMap<>();
    List<EquivalentAddressGroup> addresses = new ArrayList<>();
    boolean ringHash = endpointPolicy.name().equals(RingHashProvider.NAME);
    for (Found each : found) {
      DiscoveryMechanism mechanism = each.mechanism();
      List<List<Resolution.Locality>> byPriority = each.resolution().priorities();
      for (int p = 0; p < byPriority.size(); p++) {
        String child = childName(mechanism.cluster(), p);
        Map<String, WeightedTargetConfig.Target> targets = new LinkedHashMap<>();
        for (Resolution.Locality locality : byPriority.get(p)) {
          targets.put(
              locality.name(), new WeightedTargetConfig.Target(locality.weight(), endpointPolicy));
          for (EquivalentAddressGroup endpoint : locality.endpoints()) {
            addresses.add(
                new EquivalentAddressGroup(
                    endpoint.getAddresses(),
                    endpoint.getAttributes().toBuilder()
                        .set(
                            AddressPath.PATH,
                            ringHash ? List.of(child) : List.of(child, locality.name()))
                        .set(AddressPath.LOCALITY_WEIGHT, locality.weight())
                        .build()));
          }
        }
        // ring_hash makes one ring of all the localities' endpoints (A42): no weighted_target.
        ChildPolicy perPriority =
            ringHash
                ? endpointPolicy
                : new ChildPolicy(new WeightedTargetProvider(), new WeightedTargetConfig(targets));
        ClusterImplConfig impl =
            new ClusterImplConfig(
                mechanism.cluster(),
                mechanism.edsServiceName(),
                mechanism.maxConcurrentRequests(),
                each.resolution().drops(),
                perPriority,
                mechanism.upstreamTls(),
                mechanism.reportLoad());
        ChildPolicy top = new ChildPolicy(new ClusterImplProvider(), impl);
        if (mechanism.outlierDetection() != null) {
          top =
              new ChildPolicy(
                  new OutlierDetectionProvider(),
                  new OutlierDetectionConfig(mechanism.outlierDetection(), top));
        }
        priorities.add(child);
        children.put(child, new PriorityConfig.Child(top, false));
      }
    }
    if (priorities.isEmpty()) {
      return null;
    }
    return new PriorityTree(new PriorityConfig(priorities, children), addresses);
  }
}
