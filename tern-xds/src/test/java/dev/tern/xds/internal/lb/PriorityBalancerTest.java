package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.internal.config.JsonParser;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PriorityBalancerTest {
  private static final String TWO_PRIORITIES =
      "{\"priorities\": [\"p0\", \"p1\"], \"children\": {"
          + "\"p0\": {\"config\": [{\"round_robin\": {}}]},"
          + "\"p1\": {\"config\": [{\"round_robin\": {}}]}}}";

  private final RecordingHelper helper = new RecordingHelper();
  private final PriorityBalancer balancer = new PriorityBalancer(helper);

  private static Object config(String json) {
    ConfigOrError parsed =
        new PriorityProvider().parseLoadBalancingPolicyConfig(JsonParser.parseObject(json));
    assertThat(parsed.getError()).isNull();
    return parsed.getConfig();
  }

  private void accept(String json) {
    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                LoadBalancer.ResolvedAddresses.newBuilder()
                    .setAddresses(
                        List.of(
                            RecordingHelper.endpoint(1000, "p0"),
                            RecordingHelper.endpoint(1001, "p1")))
                    .setLoadBalancingPolicyConfig(config(json))
                    .build()));
  }

  @Test
  void lowerPriorityStartsOnlyWhenTheHigherFailsAndCallsGoBackWhenItRecovers() {
    accept(TWO_PRIORITIES);
    assertThat(helper.subchannel(1000)).isNotNull();
    assertThat(helper.subchannel(1001)).as("p1 is not started while p0 connects").isNull();

    helper.run(() -> helper.subchannel(1000).fail());
    RecordingHelper.FakeSubchannel p1 = helper.subchannel(1001);
    assertThat(p1).as("p0 failed: p1 starts").isNotNull();
    helper.run(() -> p1.setState(ConnectivityState.READY));
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    assertThat(helper.pick().getSubchannel()).isSameAs(p1);

    helper.run(() -> helper.subchannel(1000).setState(ConnectivityState.READY));
    assertThat(helper.pick().getSubchannel()).isSameAs(helper.subchannel(1000));
    assertThat(p1.shutdown).as("p1 is kept for a while after being left").isFalse();
    helper.clock.forwardTime(PriorityChild.DELETION_DELAY_NANOS, TimeUnit.NANOSECONDS);
    assertThat(p1.shutdown).isTrue();
  }

  @Test
  void failoverTimeoutStartsTheNextPriorityWhileTheFirstStillConnects() {
    accept(TWO_PRIORITIES);
    helper.run(() -> helper.subchannel(1000).setState(ConnectivityState.CONNECTING));
    helper.clock.forwardTime(9, TimeUnit.SECONDS);
    assertThat(helper.subchannel(1001)).isNull();
    helper.clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(helper.subchannel(1001)).isNotNull();
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING);

    helper.run(() -> helper.subchannel(1001).setState(ConnectivityState.READY));
    assertThat(helper.pick().getSubchannel()).isSameAs(helper.subchannel(1001));
    // p0 finally connects: calls move back.
    helper.run(() -> helper.subchannel(1000).setState(ConnectivityState.READY));
    assertThat(helper.pick().getSubchannel()).isSameAs(helper.subchannel(1000));
  }

  @Test
  void aReadyChildThatStaysConnectingTooLongFailsOver() {
    accept(TWO_PRIORITIES);
    RecordingHelper.FakeSubchannel p0 = helper.subchannel(1000);
    helper.run(() -> p0.setState(ConnectivityState.READY));
    helper.clock.forwardTime(1, TimeUnit.MINUTES);
    assertThat(helper.subchannel(1001)).isNull();

    helper.run(() -> p0.setState(ConnectivityState.CONNECTING));
    helper.clock.forwardTime(9, TimeUnit.SECONDS);
    assertThat(helper.subchannel(1001)).isNull();
    helper.clock.forwardTime(1, TimeUnit.SECONDS);
    RecordingHelper.FakeSubchannel p1 = helper.subchannel(1001);
    assertThat(p1).isNotNull();
    helper.run(() -> p1.setState(ConnectivityState.READY));
    assertThat(helper.pick().getSubchannel()).isSameAs(p1);
  }

  @Test
  void childMarkedIgnoreReresolutionRequestsDoesNotReachTheChannel() {
    accept(
        "{\"priorities\": [\"p0\", \"p1\"], \"children\": {"
            + "\"p0\": {\"config\": [{\"round_robin\": {}}], \"ignoreReresolutionRequests\": true},"
            + "\"p1\": {\"config\": [{\"round_robin\": {}}]}}}");
    helper.run(() -> helper.subchannel(1000).fail());
    assertThat(helper.refreshes).isZero();
    helper.run(() -> helper.subchannel(1001).fail());
    assertThat(helper.refreshes).isEqualTo(1);
  }

  @Test
  void everyPriorityFailedReportsTheLowestsError() {
    accept(TWO_PRIORITIES);
    helper.run(() -> helper.subchannel(1000).fail());
    helper.run(() -> helper.subchannel(1001).fail());
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus().getDescription()).contains("connection refused");
  }

  @Test
  void childRemovedFromConfigIsDroppedAfterTheDelay() {
    accept(TWO_PRIORITIES);
    helper.run(() -> helper.subchannel(1000).fail());
    RecordingHelper.FakeSubchannel p1 = helper.subchannel(1001);
    helper.run(() -> p1.setState(ConnectivityState.READY));
    accept(
        "{\"priorities\": [\"p1\"], \"children\": {\"p1\": {\"config\": [{\"round_robin\":"
            + " {}}]}}}");
    RecordingHelper.FakeSubchannel p0 = helper.subchannels.get(0);
    assertThat(p0.shutdown).isFalse();
    assertThat(helper.pick().getSubchannel()).isSameAs(p1);
    helper.clock.forwardTime(PriorityChild.DELETION_DELAY_NANOS, TimeUnit.NANOSECONDS);
    assertThat(p0.shutdown).isTrue();
    assertThat(p1.shutdown).isFalse();
  }

  @Test
  void shutdownStopsChildrenAndTimers() {
    accept(TWO_PRIORITIES);
    helper.run(balancer::shutdown);
    assertThat(helper.subchannels).allMatch(s -> s.shutdown);
    helper.clock.forwardTime(1, TimeUnit.HOURS);
    assertThat(helper.subchannel(1001)).isNull();
  }

  @Test
  void badConfigsAreRejectedNamingTheField() {
    PriorityProvider provider = new PriorityProvider();
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of()).getError().getDescription())
        .isEqualTo("priority_experimental config: priorities: missing");
    assertThat(
            provider
                .parseLoadBalancingPolicyConfig(
                    JsonParser.parseObject("{\"priorities\": [\"a\"], \"children\": {}}"))
                .getError()
                .getDescription())
        .isEqualTo("priority_experimental config: priorities: a has no entry in children");
    assertThat(
            provider
                .parseLoadBalancingPolicyConfig(
                    JsonParser.parseObject("{\"priorities\": [\"a\", \"a\"], \"children\": {}}"))
                .getError()
                .getDescription())
        .isEqualTo("priority_experimental config: priorities: duplicate a");
  }
}
