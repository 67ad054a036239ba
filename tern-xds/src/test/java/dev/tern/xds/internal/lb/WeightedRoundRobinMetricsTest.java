package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import dev.tern.Attributes;
import dev.tern.ConnectivityState;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.MetricInstrument;
import dev.tern.MetricInstruments;
import dev.tern.MetricRecorder;
import dev.tern.MetricSink;
import dev.tern.internal.config.JsonParser;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * gRFC A78's {@code weighted_round_robin} metrics, on a fake clock: each scheduler update counts
 * the endpoints in their blackout period, those whose weight expired, each weight, and the fall
 * back to round robin; with the channel's target and the endpoints' locality and backend service.
 */
class WeightedRoundRobinMetricsTest {
  private static final String LOCALITY = "{region=\"r\", zone=\"z\", sub_zone=\"s\"}";
  private static final String LABELS = "[dns:///wrr.example] [" + LOCALITY + ", cluster-a]";

  private final List<String> recorded = new ArrayList<>();
  private final RecordingHelper helper = new RecordingHelper();
  private final WeightedRoundRobinBalancer balancer;

  WeightedRoundRobinMetricsTest() {
    helper.metricRecorder = MetricRecorder.of("dns:///wrr.example", List.of(new Sink()));
    balancer = new WeightedRoundRobinBalancer(helper, helper.clock::currentTimeNanos);
  }

  /** Keeps each recording as {@code name value labels optional}. */
  private final class Sink implements MetricSink {
    private void add(MetricInstrument i, Object value, List<String> l, List<String> o) {
      recorded.add(i.name() + " " + value + " " + l + " " + o);
    }

    @Override
    public void addLongCounter(MetricInstrument i, long v, List<String> l, List<String> o) {
      add(i, v, l, o);
    }

    @Override
    public void addLongUpDownCounter(MetricInstrument i, long v, List<String> l, List<String> o) {
      add(i, v, l, o);
    }

    @Override
    public void recordDoubleHistogram(
        MetricInstrument i, double v, List<String> l, List<String> o) {
      add(i, v, l, o);
    }

    @Override
    public MetricRecorder.Registration registerBatchCallback(
        MetricRecorder.BatchCallback callback, List<MetricInstrument> gauges) {
      throw new AssertionError("weighted_round_robin has no gauges");
    }
  }

  private void acceptThreeEndpoints() {
    Attributes attributes =
        Attributes.newBuilder()
            .set(MetricInstruments.LOCALITY_ATTRIBUTE, LOCALITY)
            .set(MetricInstruments.BACKEND_SERVICE_ATTRIBUTE, "cluster-a")
            .build();
    List<EquivalentAddressGroup> endpoints = new ArrayList<>();
    for (int port = 1001; port <= 1003; port++) {
      endpoints.add(
          new EquivalentAddressGroup(
              List.of(new InetSocketAddress("127.0.0.1", port)), attributes));
    }
    Object config =
        new WeightedRoundRobinProvider()
            .parseLoadBalancingPolicyConfig(
                JsonParser.parseObject(
                    "{\"blackoutPeriod\": \"2s\", \"weightExpirationPeriod\": \"5s\","
                        + " \"weightUpdatePeriod\": \"1s\"}"))
            .getConfig();
    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                LoadBalancer.ResolvedAddresses.newBuilder()
                    .setAddresses(endpoints)
                    .setLoadBalancingPolicyConfig(config)
                    .build()));
    helper.run(() -> helper.subchannels.forEach(s -> s.setState(ConnectivityState.READY)));
  }

  /** One call to each endpoint, answered with a report of 100, 200 and 300 qps at utilization 1. */
  private void reportOncePerEndpoint() {
    for (int i = 0; i < 3; i++) {
      LoadBalancer.PickResult result = helper.pick();
      int port =
          ((InetSocketAddress)
                  result.getSubchannel().getAllAddresses().get(0).getAddresses().get(0))
              .getPort();
      WeightedRoundRobinBalancerTest.answer(
          result,
          OrcaLoadReport.newBuilder()
              .setRpsFractional((port - 1000) * 100)
              .setApplicationUtilization(1)
              .build());
    }
  }

  private List<String> takeRecorded() {
    List<String> taken = List.copyOf(recorded);
    recorded.clear();
    return taken;
  }

  @Test
  void blackoutUsableAndExpiredWeightsAreCountedAtEachSchedulerUpdate() {
    acceptThreeEndpoints();
    reportOncePerEndpoint();
    takeRecorded(); // the updates of the pickers published while the endpoints became READY

    helper.clock.forwardTime(1, TimeUnit.SECONDS); // in the 2 s blackout period
    assertThat(takeRecorded())
        .containsExactly(
            "grpc.lb.wrr.endpoint_weights 0.0 " + LABELS,
            "grpc.lb.wrr.endpoint_weights 0.0 " + LABELS,
            "grpc.lb.wrr.endpoint_weights 0.0 " + LABELS,
            "grpc.lb.wrr.rr_fallback 1 " + LABELS,
            "grpc.lb.wrr.endpoint_weight_not_yet_usable 3 " + LABELS,
            "grpc.lb.wrr.endpoint_weight_stale 0 " + LABELS);

    helper.clock.forwardTime(1, TimeUnit.SECONDS); // blackout over: weights count
    assertThat(takeRecorded())
        .containsExactly(
            "grpc.lb.wrr.endpoint_weights 100.0 " + LABELS,
            "grpc.lb.wrr.endpoint_weights 200.0 " + LABELS,
            "grpc.lb.wrr.endpoint_weights 300.0 " + LABELS,
            "grpc.lb.wrr.endpoint_weight_not_yet_usable 0 " + LABELS,
            "grpc.lb.wrr.endpoint_weight_stale 0 " + LABELS);

    helper.clock.forwardTime(3, TimeUnit.SECONDS); // no reports for 5 s: expired at the third
    List<String> updates = takeRecorded();
    assertThat(updates).filteredOn(r -> r.contains("_stale 3 ")).hasSize(1);
    assertThat(updates).filteredOn(r -> r.contains("rr_fallback")).hasSize(1);

    helper.clock.forwardTime(1, TimeUnit.SECONDS); // expired weights are not yet usable again
    assertThat(takeRecorded())
        .contains(
            "grpc.lb.wrr.endpoint_weight_not_yet_usable 3 " + LABELS,
            "grpc.lb.wrr.endpoint_weight_stale 0 " + LABELS);
  }

  @Test
  void withoutSinksNothingIsCountedAndPicksWork() {
    helper.metricRecorder = MetricRecorder.none();
    WeightedRoundRobinBalancer quiet =
        new WeightedRoundRobinBalancer(helper, helper.clock::currentTimeNanos);
    helper.run(
        () ->
            quiet.acceptResolvedAddresses(
                LoadBalancer.ResolvedAddresses.newBuilder()
                    .setAddresses(List.of(RecordingHelper.endpoint(1001)))
                    .build()));
    helper.run(() -> helper.subchannels.forEach(s -> s.setState(ConnectivityState.READY)));
    helper.clock.forwardTime(5, TimeUnit.SECONDS);
    assertThat(helper.pick().getSubchannel()).isSameAs(helper.subchannel(1001));
    assertThat(recorded).isEmpty();
  }
}
