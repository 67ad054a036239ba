package dev.tern.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import io.envoyproxy.envoy.config.cluster.v3.LoadBalancingPolicy;
import io.envoyproxy.envoy.extensions.load_balancing_policies.client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin;
import io.envoyproxy.envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Validates a Cluster's {@code load_balancing_policy} (gRFC A52): the first policy of the list
 * whose type Tern supports is the cluster's; unsupported types are skipped, and a list with none
 * Tern supports is rejected naming their types. Supported: {@code
 * envoy.extensions.load_balancing_policies.client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin}
 * (A58), {@code envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin} (its slow start
 * ignored, as gRPC does), and {@code
 * envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality} around one of them (the
 * balancer tree always weighs localities, so it stands for its {@code endpoint_picking_policy}),
 * nested at most {@value #MAX_DEPTH} deep (A52). Stateless.
 */
final class LoadBalancingPolicyValidator {
  static final String WRR_TYPE_URL =
      "type.googleapis.com/envoy.extensions.load_balancing_policies"
          + ".client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin";
  static final String ROUND_ROBIN_TYPE_URL =
      "type.googleapis.com/envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin";

  static final String WRR_LOCALITY_TYPE_URL =
      "type.googleapis.com/envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality";
  static final int MAX_DEPTH = 16;

  private LoadBalancingPolicyValidator() {}

  static XdsCluster.LbPolicy validate(LoadBalancingPolicy policy, String prefix)
      throws XdsResourceException {
    return validate(policy, prefix + "load_balancing_policy", 1);
  }

  private static XdsCluster.LbPolicy validate(LoadBalancingPolicy policy, String path, int depth)
      throws XdsResourceException {
    if (depth > MAX_DEPTH) {
      throw new XdsResourceException(path + ": policies nested more than " + MAX_DEPTH + " deep");
    }
    List<String> skipped = new ArrayList<>();
    for (int i = 0; i < policy.getPoliciesCount(); i++) {
      Any config = policy.getPolicies(i).getTypedExtensionConfig().getTypedConfig();
      String field = path + ".policies[" + i + "].typed_extension_config";
      switch (config.getTypeUrl()) {
        case WRR_LOCALITY_TYPE_URL -> {
          return validate(
              decode(config, field, WrrLocality.parser()).getEndpointPickingPolicy(),
              field + ".typed_config.endpoint_picking_policy",
              depth + 1);
        }
        case WRR_TYPE_URL -> {
          return XdsCluster.LbPolicy.weightedRoundRobin(weightedRoundRobin(config, field));
        }
        case ROUND_ROBIN_TYPE_URL -> {
          return XdsCluster.LbPolicy.ROUND_ROBIN;
        }
        default -> skipped.add(config.getTypeUrl());
      }
    }
    throw new XdsResourceException(path + ".policies: no supported policy among " + skipped);
  }

  private static <T> T decode(Any any, String field, Parser<T> parser) throws XdsResourceException {
    try {
      return parser.parseFrom(any.getValue());
    } catch (InvalidProtocolBufferException e) {
      throw new XdsResourceException(field + ".typed_config: cannot be decoded: " + e.getMessage());
    }
  }

  private static XdsCluster.WeightedRoundRobin weightedRoundRobin(Any any, String field)
      throws XdsResourceException {
    ClientSideWeightedRoundRobin wrr = decode(any, field, ClientSideWeightedRoundRobin.parser());
    String prefix = field + ".typed_config.";
    float penalty =
        wrr.hasErrorUtilizationPenalty() ? wrr.getErrorUtilizationPenalty().getValue() : 1;
    if (!(penalty >= 0) || Float.isInfinite(penalty)) {
      throw new XdsResourceException(
          prefix + "error_utilization_penalty: must be at least 0, was " + penalty);
    }
    Duration update =
        wrr.hasWeightUpdatePeriod()
            ? Durations.of(wrr.getWeightUpdatePeriod(), prefix + "weight_update_period")
            : Duration.ofSeconds(1);
    return new XdsCluster.WeightedRoundRobin(
        wrr.getEnableOobLoadReport().getValue(),
        wrr.hasOobReportingPeriod()
            ? Durations.of(wrr.getOobReportingPeriod(), prefix + "oob_reporting_period")
            : Duration.ofSeconds(10),
        wrr.hasBlackoutPeriod()
            ? Durations.of(wrr.getBlackoutPeriod(), prefix + "blackout_period")
            : Duration.ofSeconds(10),
        wrr.hasWeightExpirationPeriod()
            ? Durations.of(wrr.getWeightExpirationPeriod(), prefix + "weight_expiration_period")
            : Duration.ofMinutes(3),
        update.compareTo(Duration.ofMillis(100)) < 0 ? Duration.ofMillis(100) : update,
        penalty);
  }
}
