package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import dev.tern.CallOptions;
import dev.tern.ClientStreamTracer;
import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.internal.config.JsonParser;
import dev.tern.xds.internal.orca.OrcaPerCallTracer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WeightedRoundRobinBalancerTest {
  private final RecordingHelper helper = new RecordingHelper();
  private final WeightedRoundRobinBalancer balancer =
      new WeightedRoundRobinBalancer(helper, helper.clock::currentTimeNanos);

  private static ConfigOrError parse(String json) {
    return new WeightedRoundRobinProvider()
        .parseLoadBalancingPolicyConfig(JsonParser.parseObject(json));
  }

  private void accept(String json, int... ports) {
    Object config = parse(json).getConfig();
    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                LoadBalancer.ResolvedAddresses.newBuilder()
                    .setAddresses(
                        java.util.Arrays.stream(ports)
                            .mapToObj(p -> RecordingHelper.endpoint(p))
                            .toList())
                    .setLoadBalancingPolicyConfig(config)
                    .build()));
  }

  private void allReady() {
    helper.run(() -> helper.subchannels.forEach(s -> s.setState(ConnectivityState.READY)));
  }

  /** Picks {@code n} times, and answers each call with the report its backend gives. */
  private Map<LoadBalancer.Subchannel, Integer> callMany(
      int n, Map<Integer, OrcaLoadReport> reports) {
    Map<LoadBalancer.Subchannel, Integer> counts = new HashMap<>();
    for (int i = 0; i < n; i++) {
      LoadBalancer.PickResult result = helper.pick();
      counts.merge(result.getSubchannel(), 1, Integer::sum);
      if (result.getStreamTracerFactory() == null) {
        continue;
      }
      OrcaLoadReport report = reports.get(port(result.getSubchannel()));
      if (report == null) {
        continue;
      }
      answer(result, report);
    }
    return counts;
  }

  /** Ends the call {@code result} picked with {@code report} in its trailers. */
  static void answer(LoadBalancer.PickResult result, OrcaLoadReport report) {
    Metadata trailers = new Metadata();
    trailers.put(OrcaPerCallTracer.TRAILER, report.toByteArray());
    ClientStreamTracer tracer =
        result
            .getStreamTracerFactory()
            .newClientStreamTracer(
                ClientStreamTracer.StreamInfo.newBuilder()
                    .setCallOptions(CallOptions.DEFAULT)
                    .build(),
                new Metadata());
    tracer.inboundTrailers(trailers);
    tracer.streamClosed(Status.OK);
  }

  private static int port(LoadBalancer.Subchannel subchannel) {
    return ((java.net.InetSocketAddress) subchannel.getAllAddresses().get(0).getAddresses().get(0))
        .getPort();
  }

  private static OrcaLoadReport load(double qps, double utilization) {
    return OrcaLoadReport.newBuilder()
        .setRpsFractional(qps)
        .setApplicationUtilization(utilization)
        .build();
  }

  private static final Map<Integer, OrcaLoadReport> ONE_TWO_THREE =
      Map.of(1001, load(100, 1), 1002, load(200, 1), 1003, load(300, 1));

  @Test
  void connectsEveryEndpointAndIsReadyWithTheFirst() {
    accept("{}", 1001, 1002, 1003);
    assertThat(helper.subchannels).hasSize(3).allMatch(s -> s.connectionRequests == 1);
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING);
    helper.run(() -> helper.subchannel(1002).setState(ConnectivityState.READY));
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    assertThat(helper.pick().getSubchannel()).isSameAs(helper.subchannel(1002));
  }

  @Test
  void perCallReportsWeighTheEndpointsAfterTheBlackoutPeriod() {
    accept("{\"blackoutPeriod\": \"10s\", \"weightUpdatePeriod\": \"1s\"}", 1001, 1002, 1003);
    allReady();

    // No weights yet: an even spread, while the calls bring reports of 100, 200 and 300 qps.
    Map<LoadBalancer.Subchannel, Integer> even = callMany(3000, ONE_TWO_THREE);
    assertThat(even.values()).allMatch(c -> c == 1000);

    helper.clock.forwardTime(10, TimeUnit.SECONDS); // blackout over, the update timer has run
    callMany(30, ONE_TWO_THREE); // fresh reports
    helper.clock.forwardTime(1, TimeUnit.SECONDS);
    Map<LoadBalancer.Subchannel, Integer> weighted = callMany(6000, ONE_TWO_THREE);
    assertThat(weighted.get(helper.subchannel(1001))).isBetween(950, 1050);
    assertThat(weighted.get(helper.subchannel(1002))).isBetween(1950, 2050);
    assertThat(weighted.get(helper.subchannel(1003))).isBetween(2950, 3050);
  }

  @Test
  void weightsExpireWhenReportsStop() {
    accept("{\"blackoutPeriod\": \"0s\", \"weightExpirationPeriod\": \"60s\"}", 1001, 1002, 1003);
    allReady();
    callMany(30, ONE_TWO_THREE);
    helper.clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(callMany(600, Map.of()).get(helper.subchannel(1003))).isBetween(290, 310);
    // Stop answering with reports (the backends stopped reporting): the weights expire.
    helper.clock.forwardTime(60, TimeUnit.SECONDS);
    Map<LoadBalancer.Subchannel, Integer> counts = new HashMap<>();
    for (int i = 0; i < 3000; i++) {
      counts.merge(helper.pick().getSubchannel(), 1, Integer::sum);
    }
    assertThat(counts.values()).allMatch(c -> c == 1000);
  }

  @Test
  void anEndpointThatReconnectsStartsANewBlackoutPeriod() {
    accept("{\"blackoutPeriod\": \"5s\"}", 1001, 1002);
    allReady();
    Map<Integer, OrcaLoadReport> reports = Map.of(1001, load(100, 1), 1002, load(300, 1));
    callMany(20, reports);
    helper.clock.forwardTime(5, TimeUnit.SECONDS);
    callMany(20, reports);
    helper.clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(callMany(400, reports).get(helper.subchannel(1002))).isBetween(290, 310);

    helper.run(() -> helper.subchannel(1002).setState(ConnectivityState.IDLE));
    helper.run(() -> helper.subchannel(1002).setState(ConnectivityState.READY));
    // 1002 has no weight again: it gets the mean (1001's), so the two are even.
    helper.clock.forwardTime(1, TimeUnit.SECONDS);
    Map<LoadBalancer.Subchannel, Integer> counts = callMany(400, reports);
    assertThat(counts.get(helper.subchannel(1001))).isEqualTo(200);
  }

  @Test
  void withOutOfBandReportsPicksCarryNoTrailerReader() {
    accept("{\"enableOobLoadReport\": true}", 1001);
    helper.subchannel(1001).channel = new UnimplementedChannel();
    helper.run(() -> helper.subchannel(1001).setState(ConnectivityState.READY));
    assertThat(helper.pick().getSubchannel()).isSameAs(helper.subchannel(1001));
    assertThat(helper.pick().getStreamTracerFactory()).isNull();
    assertThat(UnimplementedChannel.methods)
        .contains("xds.service.orca.v3.OpenRcaService/StreamCoreMetrics");
  }

  /** A channel whose every call fails UNIMPLEMENTED at once, recording the method. */
  static final class UnimplementedChannel extends dev.tern.Channel {
    static final List<String> methods = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public <Q, R> dev.tern.ClientCall<Q, R> newCall(
        dev.tern.MethodDescriptor<Q, R> method, CallOptions options) {
      methods.add(method.getFullMethodName());
      return new dev.tern.ClientCall<>() {
        private Listener<R> listener;

        @Override
        public void start(Listener<R> responseListener, Metadata headers) {
          listener = responseListener;
        }

        @Override
        public void request(int numMessages) {}

        @Override
        public void cancel(String message, Throwable cause) {}

        @Override
        public void halfClose() {
          listener.onClose(Status.UNIMPLEMENTED, new Metadata());
        }

        @Override
        public void sendMessage(Q message) {}
      };
    }

    @Override
    public String authority() {
      return "test.example";
    }
  }

  @Test
  void allFailedIsTransientFailureWithTheLastError() {
    accept("{}", 1001, 1002);
    helper.run(() -> helper.subchannels.forEach(RecordingHelper.FakeSubchannel::fail));
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus().getDescription()).isEqualTo("connection refused");
    assertThat(helper.refreshes).isEqualTo(2);
  }

  @Test
  void noEndpointsIsAnError() {
    accept("{}");
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus().getDescription())
        .isEqualTo("weighted_round_robin: no endpoints");
  }

  @Test
  void removedEndpointsAreShutDownAndTheTimerStopsWithTheBalancer() {
    accept("{}", 1001, 1002);
    RecordingHelper.FakeSubchannel gone = helper.subchannel(1002);
    accept("{}", 1001);
    assertThat(gone.shutdown).isTrue();
    assertThat(helper.clock.numPendingTasks()).isOne();
    helper.run(balancer::shutdown);
    assertThat(helper.subchannels).allMatch(s -> s.shutdown);
    assertThat(helper.clock.numPendingTasks()).isZero();
  }

  @Test
  void configDefaultsAndLimits() {
    WeightedRoundRobinConfig defaults = (WeightedRoundRobinConfig) parse("{}").getConfig();
    assertThat(defaults)
        .isEqualTo(
            new WeightedRoundRobinConfig(
                false,
                TimeUnit.SECONDS.toNanos(10),
                TimeUnit.SECONDS.toNanos(10),
                TimeUnit.MINUTES.toNanos(3),
                TimeUnit.SECONDS.toNanos(1),
                1.0));
    WeightedRoundRobinConfig fast =
        (WeightedRoundRobinConfig) parse("{\"weightUpdatePeriod\": \"0.01s\"}").getConfig();
    assertThat(fast.weightUpdatePeriodNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
  }

  @Test
  void badConfigsNameTheField() {
    for (Map.Entry<String, String> bad :
        List.of(
            Map.entry(
                "{\"errorUtilizationPenalty\": -1}", "errorUtilizationPenalty: must be at least 0"),
            Map.entry(
                "{\"blackoutPeriod\": \"soon\"}",
                "blackoutPeriod: must be a non-negative duration"),
            Map.entry(
                "{\"enableOobLoadReport\": \"yes\"}", "enableOobLoadReport: must be a boolean"),
            Map.entry(
                "{\"errorUtilizationPenalty\": \"x\"}",
                "errorUtilizationPenalty: must be a number"))) {
      ConfigOrError parsed = parse(bad.getKey());
      assertThat(parsed.getError().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(parsed.getError().getDescription())
          .startsWith("weighted_round_robin config: ")
          .contains(bad.getValue());
    }
  }
}
