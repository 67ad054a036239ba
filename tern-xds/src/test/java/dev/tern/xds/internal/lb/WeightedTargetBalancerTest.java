package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.NameResolver.ConfigOrError;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WeightedTargetBalancerTest {
  private final RecordingHelper helper = new RecordingHelper();
  private final AtomicLong counter = new AtomicLong();
  // Walks through [0, total) in order: each target gets exactly its share of every full cycle.
  private final WeightedTargetBalancer balancer =
      new WeightedTargetBalancer(helper, bound -> counter.getAndIncrement() % bound);

  private static Object config(String json) {
    ConfigOrError parsed =
        new WeightedTargetProvider()
            .parseLoadBalancingPolicyConfig(dev.tern.internal.config.JsonParser.parseObject(json));
    assertThat(parsed.getError()).isNull();
    return parsed.getConfig();
  }

  private void accept(Object config) {
    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                LoadBalancer.ResolvedAddresses.newBuilder()
                    .setAddresses(
                        List.of(
                            RecordingHelper.endpoint(1001, "a"),
                            RecordingHelper.endpoint(1002, "b"),
                            RecordingHelper.endpoint(1003, "b")))
                    .setLoadBalancingPolicyConfig(config)
                    .build()));
  }

  @Test
  void callsSplitByTargetWeight() {
    accept(
        config(
            "{\"targets\": {\"a\": {\"weight\": 1, \"childPolicy\": [{\"round_robin\": {}}]},"
                + " \"b\": {\"weight\": 3, \"childPolicy\": [{\"round_robin\": {}}]}}}"));
    assertThat(helper.subchannels).hasSize(3);
    helper.run(() -> helper.subchannels.forEach(s -> s.setState(ConnectivityState.READY)));
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);

    Map<Object, Integer> counts = new HashMap<>();
    for (int i = 0; i < 400; i++) {
      counts.merge(helper.pick().getSubchannel(), 1, Integer::sum);
    }
    assertThat(counts.get(helper.subchannel(1001))).isEqualTo(100);
    // b's 300 calls are shared by its two endpoints by its own round robin.
    assertThat(counts.get(helper.subchannel(1002)) + counts.get(helper.subchannel(1003)))
        .isEqualTo(300);
    assertThat(counts.get(helper.subchannel(1002))).isBetween(140, 160);
  }

  @Test
  void readyTargetsTakeAllCallsAndFailureNeedsEveryTarget() {
    accept(
        config(
            "{\"targets\": {\"a\": {\"weight\": 5, \"childPolicy\": [{\"round_robin\": {}}]},"
                + " \"b\": {\"weight\": 1, \"childPolicy\": [{\"round_robin\": {}}]}}}"));
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING);
    helper.run(() -> helper.subchannel(1001).fail());
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING);
    helper.run(() -> helper.subchannel(1002).setState(ConnectivityState.READY));
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    for (int i = 0; i < 12; i++) {
      assertThat(helper.pick().getSubchannel()).isSameAs(helper.subchannel(1002));
    }
    helper.run(
        () -> {
          helper.subchannel(1002).fail();
          helper.subchannel(1003).fail();
        });
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus().getDescription()).contains("connection refused");
  }

  @Test
  void targetRemovedFromConfigIsShutDown() {
    accept(
        config(
            "{\"targets\": {\"a\": {\"weight\": 1, \"childPolicy\": [{\"round_robin\": {}}]},"
                + " \"b\": {\"weight\": 1, \"childPolicy\": [{\"round_robin\": {}}]}}}"));
    RecordingHelper.FakeSubchannel a = helper.subchannel(1001);
    accept(
        config(
            "{\"targets\": {\"b\": {\"weight\": 1, \"childPolicy\": [{\"round_robin\": {}}]}}}"));
    assertThat(a.shutdown).isTrue();
    assertThat(helper.subchannel(1002).shutdown).isFalse();
  }

  @Test
  void badConfigsAreRejectedNamingTheField() {
    WeightedTargetProvider provider = new WeightedTargetProvider();
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of()).getError().getDescription())
        .isEqualTo("weighted_target_experimental config: targets: missing");
    assertThat(
            provider
                .parseLoadBalancingPolicyConfig(
                    Map.of("targets", Map.of("a", Map.of("weight", 0.0))))
                .getError()
                .getDescription())
        .isEqualTo(
            "weighted_target_experimental config: targets.a.weight: must be in 1..4294967295, was"
                + " 0");
    assertThat(
            provider
                .parseLoadBalancingPolicyConfig(
                    Map.of(
                        "targets",
                        Map.of(
                            "a",
                            Map.of(
                                "weight",
                                1.0,
                                "childPolicy",
                                List.of(Map.of("no_such", Map.of()))))))
                .getError()
                .getDescription())
        .contains("targets.a.childPolicy: no registered policy among");
  }
}
