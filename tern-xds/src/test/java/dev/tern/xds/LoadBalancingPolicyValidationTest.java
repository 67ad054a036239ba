package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.BoolValue;
import com.google.protobuf.Duration;
import com.google.protobuf.FloatValue;
import com.google.protobuf.Struct;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.cluster.v3.LoadBalancingPolicy;
import io.envoyproxy.envoy.config.core.v3.TypedExtensionConfig;
import io.envoyproxy.envoy.extensions.load_balancing_policies.client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin;
import io.envoyproxy.envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality;
import org.junit.jupiter.api.Test;

/** A cluster's {@code load_balancing_policy} (A52) with weighted round robin (A58). */
class LoadBalancingPolicyValidationTest {
  private static Cluster cluster(Any... policies) {
    LoadBalancingPolicy.Builder list = LoadBalancingPolicy.newBuilder();
    for (Any policy : policies) {
      list.addPolicies(policy(policy));
    }
    return Resources.edsCluster("c1", "")
        .setLbPolicy(Cluster.LbPolicy.RING_HASH) // load_balancing_policy wins over it
        .setLoadBalancingPolicy(list)
        .build();
  }

  private static LoadBalancingPolicy.Policy policy(Any config) {
    return LoadBalancingPolicy.Policy.newBuilder()
        .setTypedExtensionConfig(
            TypedExtensionConfig.newBuilder().setName("lb").setTypedConfig(config))
        .build();
  }

  private static Any unknown() {
    return Any.pack(Struct.getDefaultInstance());
  }

  @Test
  void weightedRoundRobinWithItsDefaults() throws Exception {
    XdsCluster c =
        XdsResourceType.CLUSTER.validate(
            cluster(unknown(), Any.pack(ClientSideWeightedRoundRobin.getDefaultInstance())));
    assertThat(c.lbPolicy().kind()).isEqualTo(XdsCluster.LbPolicy.Kind.WEIGHTED_ROUND_ROBIN);
    assertThat(c.lbPolicy().weightedRoundRobin())
        .isEqualTo(
            new XdsCluster.WeightedRoundRobin(
                false,
                java.time.Duration.ofSeconds(10),
                java.time.Duration.ofSeconds(10),
                java.time.Duration.ofMinutes(3),
                java.time.Duration.ofSeconds(1),
                1.0f));
  }

  @Test
  void weightedRoundRobinSettings() throws Exception {
    XdsCluster c =
        XdsResourceType.CLUSTER.validate(
            cluster(
                Any.pack(
                    ClientSideWeightedRoundRobin.newBuilder()
                        .setEnableOobLoadReport(BoolValue.of(true))
                        .setOobReportingPeriod(Duration.newBuilder().setSeconds(2))
                        .setBlackoutPeriod(Duration.newBuilder())
                        .setWeightExpirationPeriod(Duration.newBuilder().setSeconds(60))
                        .setWeightUpdatePeriod(Duration.newBuilder().setNanos(10_000_000))
                        .setErrorUtilizationPenalty(FloatValue.of(0.5f))
                        .build())));
    assertThat(c.lbPolicy().weightedRoundRobin())
        .isEqualTo(
            new XdsCluster.WeightedRoundRobin(
                true,
                java.time.Duration.ofSeconds(2),
                java.time.Duration.ZERO,
                java.time.Duration.ofSeconds(60),
                java.time.Duration.ofMillis(100), // raised to A58's minimum
                0.5f));
  }

  @Test
  void wrrLocalityStandsForItsEndpointPickingPolicy() throws Exception {
    LoadBalancingPolicy inner =
        LoadBalancingPolicy.newBuilder()
            .addPolicies(policy(unknown()))
            .addPolicies(policy(Any.pack(ClientSideWeightedRoundRobin.getDefaultInstance())))
            .build();
    Any locality = Any.pack(WrrLocality.newBuilder().setEndpointPickingPolicy(inner).build());
    assertThat(XdsResourceType.CLUSTER.validate(cluster(locality)).lbPolicy().kind())
        .isEqualTo(XdsCluster.LbPolicy.Kind.WEIGHTED_ROUND_ROBIN);

    Any empty = Any.pack(WrrLocality.getDefaultInstance());
    assertThatThrownBy(() -> XdsResourceType.CLUSTER.validate(cluster(empty)))
        .hasMessage(
            "Cluster \"c1\": load_balancing_policy.policies[0].typed_extension_config.typed_config"
                + ".endpoint_picking_policy.policies: no supported policy among []");

    Any deep = Any.pack(ClientSideWeightedRoundRobin.getDefaultInstance());
    for (int i = 0; i < 16; i++) {
      deep =
          Any.pack(
              WrrLocality.newBuilder()
                  .setEndpointPickingPolicy(
                      LoadBalancingPolicy.newBuilder().addPolicies(policy(deep)))
                  .build());
    }
    Any tooDeep = deep;
    assertThatThrownBy(() -> XdsResourceType.CLUSTER.validate(cluster(tooDeep)))
        .hasMessageEndingWith(": policies nested more than 16 deep");
  }

  @Test
  void roundRobinByType() throws Exception {
    Any roundRobin =
        Any.newBuilder()
            .setTypeUrl(
                "type.googleapis.com/envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin")
            .build();
    assertThat(XdsResourceType.CLUSTER.validate(cluster(roundRobin)).lbPolicy())
        .isEqualTo(XdsCluster.LbPolicy.ROUND_ROBIN);
  }

  @Test
  void badSettingsAreNackedNamingTheField() {
    String field =
        "Cluster \"c1\": load_balancing_policy.policies[0].typed_extension_config.typed_config.";
    assertThatThrownBy(
            () ->
                XdsResourceType.CLUSTER.validate(
                    cluster(
                        Any.pack(
                            ClientSideWeightedRoundRobin.newBuilder()
                                .setErrorUtilizationPenalty(FloatValue.of(-1))
                                .build()))))
        .isInstanceOf(XdsResourceException.class)
        .hasMessage(field + "error_utilization_penalty: must be at least 0, was -1.0");
    assertThatThrownBy(
            () ->
                XdsResourceType.CLUSTER.validate(
                    cluster(
                        Any.pack(
                            ClientSideWeightedRoundRobin.newBuilder()
                                .setBlackoutPeriod(Duration.newBuilder().setSeconds(-1))
                                .build()))))
        .hasMessageStartingWith(field + "blackout_period: must be a non-negative duration");
  }

  @Test
  void noSupportedPolicyIsNackedNamingTheTypes() {
    assertThatThrownBy(() -> XdsResourceType.CLUSTER.validate(cluster(unknown())))
        .isInstanceOf(XdsResourceException.class)
        .hasMessage(
            "Cluster \"c1\": load_balancing_policy.policies: no supported policy among"
                + " [type.googleapis.com/google.protobuf.Struct]");
  }
}
