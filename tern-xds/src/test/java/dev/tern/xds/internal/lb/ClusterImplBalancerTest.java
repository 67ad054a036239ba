package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientStreamTracer;
import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.internal.config.JsonParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClusterImplBalancerTest {
  private final RecordingHelper helper = new RecordingHelper();
  private final AtomicLong counter = new AtomicLong();
  // Steps through [0, 1000000) by 1000: 1000 draws cover it evenly.
  private final ClusterImplBalancer balancer =
      new ClusterImplBalancer(helper, bound -> (counter.getAndIncrement() * 1000) % bound);

  @AfterEach
  void shutdown() {
    helper.run(balancer::shutdown);
  }

  private void accept(String json) {
    accept(helper, balancer, json);
  }

  private static void accept(RecordingHelper helper, ClusterImplBalancer balancer, String json) {
    ConfigOrError parsed =
        new ClusterImplProvider().parseLoadBalancingPolicyConfig(JsonParser.parseObject(json));
    assertThat(parsed.getError()).isNull();
    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                LoadBalancer.ResolvedAddresses.newBuilder()
                    .setAddresses(List.of(RecordingHelper.endpoint(1000)))
                    .setLoadBalancingPolicyConfig(parsed.getConfig())
                    .build()));
    helper.run(() -> helper.subchannel(1000).setState(ConnectivityState.READY));
  }

  @Test
  void dropsEachCategoryAtItsRate() {
    accept(
        "{\"cluster\": \"c1\", \"childPolicy\": [{\"round_robin\": {}}], \"dropCategories\": ["
            + "{\"category\": \"lb\", \"requestsPerMillion\": 250000}]}");
    int dropped = 0;
    for (int i = 0; i < 1000; i++) {
      LoadBalancer.PickResult result = helper.pick();
      if (result.isDrop()) {
        dropped++;
        assertThat(result.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(result.getStatus().getDescription()).isEqualTo("dropped by load balancer: lb");
      } else {
        assertThat(result.getSubchannel()).isSameAs(helper.subchannel(1000));
      }
    }
    assertThat(dropped).isEqualTo(250);
  }

  @Test
  void refusesCallsBeyondMaxRequestsAndReusesFreedSlots() {
    accept(
        "{\"cluster\": \"c1\", \"maxConcurrentRequests\": 2,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    List<ClientStreamTracer> open = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      open.add(startStream(helper.pick()));
    }
    LoadBalancer.PickResult third = helper.pick();
    assertThat(third.isDrop()).isTrue();
    assertThat(third.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(third.getStatus().getDescription())
        .isEqualTo("cluster c1: circuit breaker open, max_requests 2 calls in flight");

    open.get(0).streamClosed(Status.OK);
    open.get(0).streamClosed(Status.OK); // a second close must not free a second slot
    ClientStreamTracer reused = startStream(helper.pick());
    assertThat(helper.pick().isDrop()).isTrue();
    reused.streamClosed(Status.CANCELLED);
    open.get(1).streamClosed(Status.OK);
    assertThat(helper.pick().isDrop()).isFalse();
  }

  @Test
  void inFlightCountSurvivesANewPicker() {
    accept(
        "{\"cluster\": \"c1\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    startStream(helper.pick());
    accept(
        "{\"cluster\": \"c1\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    assertThat(helper.pick().isDrop()).isTrue();
  }

  @Test
  void balancersOfOneClusterShareTheLimitAcrossChannels() {
    String config =
        "{\"cluster\": \"shared\", \"edsServiceName\": \"e1\", \"maxConcurrentRequests\": 2,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}";
    RecordingHelper otherHelper = new RecordingHelper();
    ClusterImplBalancer other = new ClusterImplBalancer(otherHelper, bound -> 0);
    accept(config);
    accept(otherHelper, other, config);
    ClientStreamTracer first = startStream(helper.pick());
    startStream(otherHelper.pick());
    // Two calls in flight across both balancers: the third is refused in either.
    assertThat(helper.pick().getStatus().getDescription())
        .isEqualTo("cluster shared: circuit breaker open, max_requests 2 calls in flight");
    assertThat(otherHelper.pick().isDrop()).isTrue();

    first.streamClosed(Status.OK);
    startStream(otherHelper.pick()); // the slot freed in one balancer is used by the other
    assertThat(helper.pick().isDrop()).isTrue();

    otherHelper.run(other::shutdown);
    assertThat(ClusterCallCounters.isTracked("shared", "e1")).isTrue();
    helper.run(balancer::shutdown);
    assertThat(ClusterCallCounters.isTracked("shared", "e1")).isFalse();
  }

  @Test
  void anotherEdsServiceNameOrClusterCountsApart() {
    String json =
        "{\"cluster\": \"%s\", \"edsServiceName\": \"%s\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}";
    accept(String.format(json, "apart", "e1"));
    startStream(helper.pick());
    assertThat(helper.pick().isDrop()).isTrue();
    for (String[] key : new String[][] {{"apart", "e2"}, {"apart2", "e1"}}) {
      RecordingHelper otherHelper = new RecordingHelper();
      ClusterImplBalancer other = new ClusterImplBalancer(otherHelper, bound -> 0);
      accept(otherHelper, other, String.format(json, key[0], key[1]));
      assertThat(otherHelper.pick().isDrop()).isFalse();
      otherHelper.run(other::shutdown);
      assertThat(ClusterCallCounters.isTracked(key[0], key[1])).isFalse();
    }
  }

  @Test
  void aBalancerMovedToAnotherClusterReleasesTheOldCounter() {
    accept(
        "{\"cluster\": \"before\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    startStream(helper.pick());
    accept(
        "{\"cluster\": \"after\", \"maxConcurrentRequests\": 1,"
            + " \"childPolicy\": [{\"round_robin\": {}}]}");
    assertThat(ClusterCallCounters.isTracked("before", null)).isFalse();
    assertThat(helper.pick().isDrop()).isFalse();
  }

  @Test
  void badConfigsAreRejectedNamingTheField() {
    ClusterImplProvider provider = new ClusterImplProvider();
    assertThat(
            provider
                .parseLoadBalancingPolicyConfig(
                    JsonParser.parseObject(
                        "{\"cluster\": \"c\", \"childPolicy\": [{\"round_robin\": {}}],"
                            + " \"dropCategories\": [{\"category\": \"x\","
                            + " \"requestsPerMillion\": 1000001}]}"))
                .getError()
                .getDescription())
        .isEqualTo(
            "cluster_impl_experimental config: dropCategories[0].requestsPerMillion: must be at"
                + " most 1000000, was 1000001");
    assertThat(
            provider
                .parseLoadBalancingPolicyConfig(Map.of("childPolicy", List.of()))
                .getError()
                .getDescription())
        .isEqualTo("cluster_impl_experimental config: cluster: missing");
  }

  private static ClientStreamTracer startStream(LoadBalancer.PickResult result) {
    assertThat(result.getSubchannel()).isNotNull();
    return result
        .getStreamTracerFactory()
        .newClientStreamTracer(
            new ClientStreamTracer.StreamInfo(CallOptions.DEFAULT), new Metadata());
  }
}
