package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientStreamTracer;
import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.internal.config.JsonParser;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

class OutlierDetectionBalancerTest {
  private static final ClientStreamTracer.StreamInfo INFO =
      new ClientStreamTracer.StreamInfo(CallOptions.DEFAULT);

  private final RecordingHelper helper = new RecordingHelper();
  private final int[] draw = {0};
  private final OutlierDetectionBalancer balancer =
      new OutlierDetectionBalancer(helper, helper.clock::currentTimeNanos, bound -> draw[0]);

  private static final String FAILURE_50 =
      "\"failurePercentageEjection\": {\"threshold\": 50, \"minimumHosts\": 3,"
          + " \"requestVolume\": 10}";

  private void accept(String json, int... ports) {
    ConfigOrError parsed =
        new OutlierDetectionProvider()
            .parseLoadBalancingPolicyConfig(
                JsonParser.parseObject(
                    "{\"childPolicy\": [{\"round_robin\": {}}]"
                        + (json.isEmpty() ? "" : ", ")
                        + json
                        + "}"));
    assertThat(parsed.getError()).isNull();
    List<EquivalentAddressGroup> addresses = new ArrayList<>();
    for (int port : ports) {
      addresses.add(new EquivalentAddressGroup(RecordingHelper.address(port)));
    }
    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                LoadBalancer.ResolvedAddresses.newBuilder()
                    .setAddresses(addresses)
                    .setLoadBalancingPolicyConfig(parsed.getConfig())
                    .build()));
    for (int port : ports) {
      RecordingHelper.FakeSubchannel subchannel = helper.subchannel(port);
      if (subchannel.listener != null) {
        helper.run(() -> subchannel.setState(ConnectivityState.READY));
      }
    }
  }

  private static int port(LoadBalancer.PickResult result) {
    return ((InetSocketAddress)
            result.getSubchannel().getAllAddresses().get(0).getAddresses().get(0))
        .getPort();
  }

  /**
   * Makes {@code calls} picks and closes each call with the status {@code outcome} gives its port.
   */
  private Map<Integer, Integer> call(int calls, IntFunction<Status> outcome) {
    Map<Integer, Integer> perPort = new HashMap<>();
    for (int i = 0; i < calls; i++) {
      LoadBalancer.PickResult result = helper.pick();
      assertThat(result.getSubchannel()).isInstanceOf(RecordingHelper.FakeSubchannel.class);
      int port = port(result);
      perPort.merge(port, 1, Integer::sum);
      ClientStreamTracer.Factory factory = result.getStreamTracerFactory();
      if (factory != null) {
        factory.newClientStreamTracer(INFO, new Metadata()).streamClosed(outcome.apply(port));
      }
    }
    return perPort;
  }

  /** The ports picked in 60 calls (that succeed). */
  private Set<Integer> picked() {
    return new TreeSet<>(call(60, port -> Status.OK).keySet());
  }

  private static IntFunction<Status> failing(int bad) {
    return port -> port == bad ? Status.UNAVAILABLE : Status.OK;
  }

  private void forwardSeconds(long seconds) {
    helper.clock.forwardTime(seconds, TimeUnit.SECONDS);
  }

  @Test
  void failurePercentageEjectsTheFailingAddressAtTheIntervalAndTheChildStopsPickingIt() {
    accept(FAILURE_50, 1, 2, 3);
    assertThat(call(300, failing(3))).containsEntry(3, 100);
    forwardSeconds(9);
    assertThat(picked()).containsExactly(1, 2, 3);
    forwardSeconds(1);
    assertThat(picked()).containsExactly(1, 2);
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
  }

  @Test
  void failurePercentageEjectsOnlyAboveTheThreshold() {
    accept(FAILURE_50, 1, 2, 3);
    // Port 3 fails every second call: 50%, not above 50.
    int[] n = {0};
    call(300, port -> port == 3 && n[0]++ % 2 == 0 ? Status.INTERNAL : Status.OK);
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2, 3);
    call(300, port -> port == 3 && n[0]++ % 3 != 0 ? Status.INTERNAL : Status.OK);
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2);
  }

  @Test
  void everyNonOkStatusCountsAsAFailure() {
    accept(FAILURE_50, 1, 2, 3);
    call(300, port -> port == 3 ? Status.CANCELLED : Status.OK);
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2);
  }

  @Test
  void nothingIsEjectedBelowMinimumHostsOrRequestVolume() {
    accept(
        "\"failurePercentageEjection\": {\"threshold\": 50, \"minimumHosts\": 4,"
            + " \"requestVolume\": 10}",
        1,
        2,
        3);
    call(300, failing(3));
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2, 3);

    accept(
        "\"failurePercentageEjection\": {\"threshold\": 50, \"minimumHosts\": 3,"
            + " \"requestVolume\": 121}",
        1,
        2,
        3);
    call(300, failing(3)); // with the 20 each picked() made: 120 calls, one short of the volume
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2, 3);
  }

  @Test
  void enforcementPercentageDecidesByTheDraw() {
    draw[0] = 60;
    accept(
        "\"failurePercentageEjection\": {\"threshold\": 50, \"minimumHosts\": 3,"
            + " \"requestVolume\": 10, \"enforcementPercentage\": 60}",
        1,
        2,
        3);
    call(300, failing(3));
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2, 3);
    draw[0] = 59;
    call(300, failing(3));
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2);
  }

  @Test
  void successRateEjectsBelowMeanMinusStdevTimesFactor() {
    // Success rates 1, 1, 1, 1 and 0.5: mean 0.9, population stdev 0.2. With factor 2.1 the
    // threshold is 0.48 (0.5 stays); with 1.9 it is 0.52 (0.5 goes).
    String part =
        "\"successRateEjection\": {\"minimumHosts\": 5, \"requestVolume\": 100, \"stdevFactor\": ";
    accept(part + "2100}, \"maxEjectionPercent\": 50", 1, 2, 3, 4, 5);
    int[] n = {0};
    IntFunction<Status> halfOf5 =
        port -> port == 5 && n[0]++ % 2 == 0 ? Status.INTERNAL : Status.OK;
    assertThat(call(500, halfOf5)).containsEntry(5, 100);
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2, 3, 4, 5);

    accept(part + "1900}, \"maxEjectionPercent\": 50", 1, 2, 3, 4, 5);
    call(500, halfOf5);
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2, 3, 4);
  }

  @Test
  void successRateNeedsMinimumHostsWithEnoughVolume() {
    accept("\"successRateEjection\": {\"minimumHosts\": 5, \"requestVolume\": 100}", 1, 2, 3, 4);
    call(400, failing(4));
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2, 3, 4);
  }

  @Test
  void maxEjectionPercentStopsEjectingButAlwaysAllowsOne() {
    accept(FAILURE_50, 1, 2, 3); // maxEjectionPercent defaults to 10: still one address goes
    call(300, port -> Status.UNAVAILABLE);
    forwardSeconds(10);
    assertThat(picked()).hasSize(2);

    OutlierDetectionBalancerTest other = new OutlierDetectionBalancerTest();
    other.accept(FAILURE_50 + ", \"maxEjectionPercent\": 34", 1, 2, 3);
    other.call(300, port -> Status.UNAVAILABLE);
    other.forwardSeconds(10);
    // 0% ejected: one goes; 33% is not above 34: a second goes; 67% is: the third stays.
    assertThat(other.picked()).hasSize(1);
  }

  @Test
  void ejectedAddressReturnsAfterBaseTimesMultiplierWhichGrowsAndDecays() {
    accept(FAILURE_50 + ", \"baseEjectionTime\": \"30s\", \"maxEjectionTime\": \"50s\"", 1, 2, 3);
    call(300, failing(3));
    forwardSeconds(10); // t=10: ejected, multiplier 1
    assertThat(picked()).containsExactly(1, 2);
    forwardSeconds(20); // t=30
    assertThat(picked()).containsExactly(1, 2);
    forwardSeconds(10); // t=40: 30 s passed
    assertThat(picked()).containsExactly(1, 2, 3);

    call(300, failing(3));
    forwardSeconds(10); // t=50: ejected again, multiplier 2: 60 s, capped at 50 s
    assertThat(picked()).containsExactly(1, 2);
    forwardSeconds(40); // t=90
    assertThat(picked()).containsExactly(1, 2);
    forwardSeconds(10); // t=100: 50 s passed
    assertThat(picked()).containsExactly(1, 2, 3);

    // Two healthy sweeps (t=110, 120) bring the multiplier from 2 to 0; the next ejection
    // (t=130) is then for 30 s again.
    forwardSeconds(20);
    call(300, failing(3));
    forwardSeconds(10); // t=130
    assertThat(picked()).containsExactly(1, 2);
    forwardSeconds(30); // t=160
    assertThat(picked()).containsExactly(1, 2, 3);
  }

  @Test
  void removedAddressLosesItsEjectionAndTurningDetectionOffReturnsAll() {
    accept(FAILURE_50, 1, 2, 3);
    call(300, failing(3));
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2);

    accept(FAILURE_50, 1, 2);
    accept(FAILURE_50, 1, 2, 3);
    assertThat(picked()).containsExactly(1, 2, 3);

    call(300, failing(3));
    forwardSeconds(10);
    assertThat(picked()).containsExactly(1, 2);
    accept("", 1, 2, 3);
    assertThat(picked()).containsExactly(1, 2, 3);
    assertThat(helper.clock.getPendingTasks()).isEmpty();
    // With no algorithm, calls are not even counted.
    assertThat(helper.pick().getStreamTracerFactory()).isNull();
  }

  @Test
  void newConfigKeepsTheIntervalsPhase() {
    accept(FAILURE_50, 1, 2, 3);
    forwardSeconds(6);
    call(300, failing(3));
    accept(FAILURE_50, 1, 2, 3);
    forwardSeconds(3);
    assertThat(picked()).containsExactly(1, 2, 3);
    forwardSeconds(1); // 10 s after the first config
    assertThat(picked()).containsExactly(1, 2);
  }

  @Test
  void childSeesAnEjectedSubchannelInTransientFailureAndItsLatestStateOnReturn() {
    OutlierEndpoint endpoint = new OutlierEndpoint();
    RecordingHelper.FakeSubchannel real =
        (RecordingHelper.FakeSubchannel)
            helper.createSubchannel(
                LoadBalancer.CreateSubchannelArgs.newBuilder()
                    .setAddresses(new EquivalentAddressGroup(RecordingHelper.address(1)))
                    .build());
    List<OutlierSubchannel> shutDown = new ArrayList<>();
    OutlierSubchannel wrapper = new OutlierSubchannel(real, groups -> endpoint, shutDown::add);
    List<ConnectivityStateInfo> seen = new ArrayList<>();
    wrapper.start(seen::add);
    real.setState(ConnectivityState.READY);
    endpoint.eject(0);
    real.setState(ConnectivityState.IDLE); // hidden while ejected
    assertThat(seen).hasSize(2);
    assertThat(seen.get(1).getState()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(seen.get(1).getStatus().getDescription()).isEqualTo("ejected by outlier detection");
    endpoint.uneject();
    assertThat(seen.get(2)).isEqualTo(ConnectivityStateInfo.forNonError(ConnectivityState.IDLE));
    wrapper.shutdown();
    assertThat(real.shutdown).isTrue();
    assertThat(shutDown).containsExactly(wrapper);
  }

  @Test
  void badConfigIsRefusedNamingTheField() {
    assertThat(error("\"maxEjectionPercent\": 101"))
        .isEqualTo(
            "outlier_detection_experimental config: maxEjectionPercent: must be at most 100, was"
                + " 101");
    assertThat(error("\"failurePercentageEjection\": {\"threshold\": 150}"))
        .isEqualTo(
            "outlier_detection_experimental config: failurePercentageEjection.threshold: must be"
                + " at most 100, was 150");
    assertThat(error("\"successRateEjection\": {\"enforcementPercentage\": -1}"))
        .isEqualTo(
            "outlier_detection_experimental config: successRateEjection.enforcementPercentage:"
                + " must be a non-negative integer");
    assertThat(error("\"baseEjectionTime\": \"-1s\""))
        .isEqualTo(
            "outlier_detection_experimental config: baseEjectionTime: must be a non-negative"
                + " duration such as \"1.5s\", was -1s");
    assertThat(error("\"interval\": \"0s\""))
        .isEqualTo("outlier_detection_experimental config: interval: must be positive");
    assertThat(error("\"interval\": \"1.5s\"")).isNull();
  }

  @Test
  void clusterResolverPutsOutlierDetectionAboveClusterImplOnlyForAClusterThatHasIt() {
    ClusterResolverConfig config =
        ClusterResolverConfig.parse(
            JsonParser.parseObject(
                "{\"discoveryMechanisms\": ["
                    + "{\"cluster\": \"c1\", \"type\": \"EDS\", \"outlierDetection\": {"
                    + "\"interval\": \"1s\", "
                    + FAILURE_50
                    + "}}, {\"cluster\": \"c2\", \"type\": \"EDS\"}],"
                    + " \"xdsLbPolicy\": [{\"round_robin\": {}}]}"));
    Resolution resolution =
        Resolution.of(
            List.of(
                List.of(
                    new Resolution.Locality(
                        "z1", 1, List.of(new EquivalentAddressGroup(RecordingHelper.address(1)))))),
            List.of());
    List<PriorityTree.Found> found = new ArrayList<>();
    for (ClusterResolverConfig.DiscoveryMechanism mechanism : config.mechanisms()) {
      found.add(new PriorityTree.Found(mechanism, resolution));
    }
    PriorityTree tree = PriorityTree.build(found, config.endpointPolicy());

    ChildPolicy withIt = tree.config().children().get("c1[child0]").policy();
    assertThat(withIt.name()).isEqualTo("outlier_detection_experimental");
    OutlierDetectionConfig outlier = (OutlierDetectionConfig) withIt.config();
    assertThat(outlier.detection().interval()).isEqualTo(java.time.Duration.ofSeconds(1));
    assertThat(outlier.detection().failurePercentage().threshold()).isEqualTo(50);
    assertThat(outlier.detection().successRate()).isNull();
    assertThat(outlier.childPolicy().name()).isEqualTo("cluster_impl_experimental");
    assertThat(tree.config().children().get("c2[child0]").policy().name())
        .isEqualTo("cluster_impl_experimental");
  }

  private static String error(String json) {
    ConfigOrError parsed =
        new OutlierDetectionProvider()
            .parseLoadBalancingPolicyConfig(
                JsonParser.parseObject("{\"childPolicy\": [{\"round_robin\": {}}], " + json + "}"));
    return parsed.getError() == null ? null : parsed.getError().getDescription();
  }
}
