package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancerProvider;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The parsed config of {@code xds_cluster_manager_experimental}: each child's name ({@code
 * "cluster:<name>"}) and its chosen policy with that policy's parsed config. Immutable.
 */
record ClusterManagerConfig(Map<String, Child> children) {
  ClusterManagerConfig {
    children = Collections.unmodifiableMap(new LinkedHashMap<>(children));
  }

  /** A child's policy (its provider) and parsed config. */
  record Child(LoadBalancerProvider provider, Object config) {
    Child {
      Objects.requireNonNull(provider, "provider");
    }

    String policyName() {
      return provider.getPolicyName();
    }
  }
}
