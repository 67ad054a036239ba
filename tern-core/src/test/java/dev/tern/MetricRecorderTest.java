package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The instrument registry and the recorder's checks: bad recordings fail at once, naming why. */
class MetricRecorderTest {
  /** A plug-in's own gauge, registered as a plug-in would (the standard ones have none yet). */
  static final MetricInstrument TEST_GAUGE =
      MetricInstrumentRegistry.getDefaultRegistry()
          .register(
              MetricInstrument.Kind.LONG_GAUGE,
              "tern.test.recorder_gauge",
              "A gauge of MetricRecorderTest.",
              "{thing}",
              List.of("grpc.target"),
              List.of(),
              true);

  private final List<String> seen = new ArrayList<>();
  private final MetricSink sink =
      new MetricSink() {
        @Override
        public void addLongCounter(
            MetricInstrument i, long value, List<String> labels, List<String> optional) {
          seen.add(i.name() + "+" + value + labels + optional);
        }

        @Override
        public void addLongUpDownCounter(
            MetricInstrument i, long value, List<String> labels, List<String> optional) {
          seen.add(i.name() + "+" + value + labels + optional);
        }

        @Override
        public void recordDoubleHistogram(
            MetricInstrument i, double value, List<String> labels, List<String> optional) {
          seen.add(i.name() + "=" + value + labels + optional);
        }

        @Override
        public MetricRecorder.Registration registerBatchCallback(
            MetricRecorder.BatchCallback callback, List<MetricInstrument> gauges) {
          seen.add("callback for " + gauges.size());
          return () -> seen.add("closed");
        }
      };

  @Test
  void theStandardInstrumentsAreRegisteredOffByDefaultWithTheGrfcsNames() {
    List<String> names =
        MetricInstrumentRegistry.getDefaultRegistry().instruments().stream()
            .map(MetricInstrument::name)
            .toList();
    assertThat(names)
        .contains(
            "grpc.subchannel.connection_attempts_succeeded",
            "grpc.subchannel.connection_attempts_failed",
            "grpc.subchannel.disconnections",
            "grpc.subchannel.open_connections",
            "grpc.lb.wrr.rr_fallback",
            "grpc.lb.wrr.endpoint_weight_not_yet_usable",
            "grpc.lb.wrr.endpoint_weight_stale",
            "grpc.lb.wrr.endpoint_weights",
            "grpc.xds_client.server_failure",
            "grpc.xds_client.resource_updates_valid",
            "grpc.xds_client.resource_updates_invalid",
            "grpc.xds_client.connected",
            "grpc.xds_client.resources");
    assertThat(MetricInstrumentRegistry.getDefaultRegistry().instruments())
        .filteredOn(i -> i.name().startsWith("grpc."))
        .noneMatch(MetricInstrument::enabledByDefault);
    assertThat(MetricInstruments.SUBCHANNEL_OPEN_CONNECTIONS.optionalLabelKeys())
        .containsExactly("grpc.security_level", "grpc.lb.backend_service", "grpc.lb.locality");
  }

  @Test
  void aNameRegisteredTwiceIsRefused() {
    assertThatThrownBy(
            () ->
                MetricInstrumentRegistry.getDefaultRegistry()
                    .register(
                        MetricInstrument.Kind.LONG_COUNTER,
                        "grpc.subchannel.disconnections",
                        "again",
                        "{x}",
                        List.of(),
                        List.of(),
                        true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("grpc.subchannel.disconnections")
        .hasMessageContaining("already registered");
  }

  @Test
  void recordingsReachEverySinkAndWrongKindsOrLabelCountsAreRefused() {
    MetricRecorder recorder = MetricRecorder.of("dns:///t", List.of(sink, sink));
    assertThat(recorder.target()).isEqualTo("dns:///t");
    recorder.addLongCounter(
        MetricInstruments.WRR_RR_FALLBACK, 1, List.of("dns:///t"), List.of("", ""));
    assertThat(seen).hasSize(2);

    assertThatThrownBy(
            () ->
                recorder.recordDoubleHistogram(
                    MetricInstruments.WRR_RR_FALLBACK, 1, List.of("t"), List.of("", "")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("grpc.lb.wrr.rr_fallback is a LONG_COUNTER");
    assertThatThrownBy(
            () ->
                recorder.addLongCounter(
                    MetricInstruments.WRR_RR_FALLBACK, 1, List.of(), List.of("", "")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("labels: ");
    assertThatThrownBy(
            () ->
                recorder.addLongCounter(
                    MetricInstruments.WRR_RR_FALLBACK, -1, List.of("t"), List.of("", "")))
        .hasMessageContaining("value must be >= 0");
    assertThatThrownBy(
            () ->
                recorder.registerBatchCallback(
                    r -> {}, MetricInstruments.SUBCHANNEL_DISCONNECTIONS))
        .hasMessageContaining("gauges: grpc.subchannel.disconnections is a LONG_COUNTER");
    assertThat(seen).hasSize(2);

    MetricRecorder.Registration registration = recorder.registerBatchCallback(r -> {}, TEST_GAUGE);
    registration.close();
    assertThat(seen.subList(2, seen.size()))
        .containsExactly("callback for 1", "callback for 1", "closed", "closed");
  }

  @Test
  void aRecorderWithoutSinksIsEmptyAndRecordsNothing() {
    MetricRecorder recorder = MetricRecorder.of("dns:///t", List.of());
    assertThat(recorder.isEmpty()).isTrue();
    assertThat(MetricRecorder.none().isEmpty()).isTrue();
    recorder.registerBatchCallback(r -> {}, TEST_GAUGE).close();
  }
}
