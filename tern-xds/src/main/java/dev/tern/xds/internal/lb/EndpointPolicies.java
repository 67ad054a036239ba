package dev.tern.xds.internal.lb;

import dev.tern.xds.XdsCluster;
import java.util.Map;

/**
 * The endpoint-picking policy for a cluster's {@code lb_policy}, created through the default {@code
 * LoadBalancerRegistry} (tern-core's {@code round_robin} and {@code least_request}). Stateless;
 * thread-safe.
 */
final class EndpointPolicies {
  private EndpointPolicies() {}

  /**
   * @throws IllegalArgumentException for RING_HASH, which these balancers do not implement yet
   */
  static ChildPolicy of(XdsCluster.LbPolicy policy) {
    return switch (policy.kind()) {
      case ROUND_ROBIN -> ChildPolicy.of("round_robin", Map.of());
      case LEAST_REQUEST ->
          ChildPolicy.of("least_request", Map.of("choiceCount", (double) policy.choiceCount()));
      case RING_HASH ->
          throw new IllegalArgumentException("lb_policy RING_HASH is not supported by Tern yet");
    };
  }
}
