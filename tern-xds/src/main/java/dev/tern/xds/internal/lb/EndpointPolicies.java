package dev.tern.xds.internal.lb;

import dev.tern.xds.XdsCluster;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;

/**
 * The endpoint-picking policy for a cluster's {@code lb_policy}, created through the default {@code
 * LoadBalancerRegistry} (tern-core's {@code round_robin} and {@code least_request}, this package's
 * {@code ring_hash_experimental} and {@code weighted_round_robin}). Stateless; thread-safe.
 */
final class EndpointPolicies {
  private EndpointPolicies() {}

  /**
   * @throws IllegalArgumentException when the policy is not registered (ring hash switched off)
   */
  static ChildPolicy of(XdsCluster.LbPolicy policy) {
    return switch (policy.kind()) {
      case ROUND_ROBIN -> ChildPolicy.of("round_robin", Map.of());
      case LEAST_REQUEST ->
          ChildPolicy.of("least_request", Map.of("choiceCount", (double) policy.choiceCount()));
      case RING_HASH ->
          ChildPolicy.of(
              RingHashProvider.NAME,
              Map.of(
                  "minRingSize", (double) policy.minRingSize(),
                  "maxRingSize", (double) policy.maxRingSize()));
      case WEIGHTED_ROUND_ROBIN -> weightedRoundRobin(policy.weightedRoundRobin());
    };
  }

  private static ChildPolicy weightedRoundRobin(XdsCluster.WeightedRoundRobin wrr) {
    return ChildPolicy.of(
        WeightedRoundRobinProvider.NAME,
        Map.of(
            "enableOobLoadReport", wrr.enableOobLoadReport(),
            "oobReportingPeriod", json(wrr.oobReportingPeriod()),
            "blackoutPeriod", json(wrr.blackoutPeriod()),
            "weightExpirationPeriod", json(wrr.weightExpirationPeriod()),
            "weightUpdatePeriod", json(wrr.weightUpdatePeriod()),
            "errorUtilizationPenalty", (double) wrr.errorUtilizationPenalty()));
  }

  /** A duration as protobuf JSON writes it ({@code "1.5s"}). */
  private static String json(Duration duration) {
    return BigDecimal.valueOf(duration.getSeconds())
            .add(BigDecimal.valueOf(duration.getNano(), 9))
            .stripTrailingZeros()
            .toPlainString()
        + "s";
  }
}
