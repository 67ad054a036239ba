package dev.tern.grpcjava.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.MetricInstrument;
import dev.tern.MetricInstrumentRegistry;
import dev.tern.MetricInstruments;
import dev.tern.MetricRecorder;
import dev.tern.testing.LogCapture;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * A grpc-java metric sink fed by a Tern channel's recorder: Tern's instruments reach it as the
 * grpc-java instruments of the same names, which are grpc-core's own when it registered them (it is
 * on this class path; grpc-xds is not, so the bridge registers the xDS and WRR names itself), with
 * label values by key; gauges through the sink's batch callbacks; only what the sink enables; and a
 * name grpc-java registered with another kind or labels skipped with one warning.
 */
class GrpcJavaMetricSinkTest {
  private static final String TARGET = "dns:///orders.example:443";

  private static MetricRecorder recorderFor(RecordingGrpcJavaSink sink) {
    return MetricRecorder.of(TARGET, List.of(new GrpcJavaMetricSink(sink)));
  }

  private static List<io.grpc.MetricInstrument> grpcJavaInstrumentsNamed(String name) {
    return io.grpc.MetricInstrumentRegistry.getDefaultRegistry().getMetricInstruments().stream()
        .filter(instrument -> instrument.getName().equals(name))
        .toList();
  }

  @Test
  void aNameGrpcCoreRegisteredIsReusedNotRegisteredAgain() throws Exception {
    String name = "grpc.subchannel.connection_attempts_succeeded";
    RecordingGrpcJavaSink sink = RecordingGrpcJavaSink.enabling(name);

    recorderFor(sink)
        .addLongCounter(
            MetricInstruments.SUBCHANNEL_CONNECTION_ATTEMPTS_SUCCEEDED,
            1,
            List.of(TARGET),
            List.of("cluster-a", ""));
    // grpc-core's class initializes without failing on a name registered twice (it already has).
    Class.forName("io.grpc.internal.SubchannelMetrics", true, getClass().getClassLoader());

    assertThat(sink.recordings()).containsExactly(name + " 1 [" + TARGET + "] [cluster-a, ]");
    List<io.grpc.MetricInstrument> registered = grpcJavaInstrumentsNamed(name);
    assertThat(registered).hasSize(1);
    assertThat(sink.instruments()).containsExactly(registered.get(0));
    // grpc-core's own registration (its description says EXPERIMENTAL; Tern's does not).
    assertThat(registered.get(0).getDescription()).startsWith("EXPERIMENTAL.");
    assertThat(registered.get(0)).isInstanceOf(io.grpc.LongCounterMetricInstrument.class);
  }

  @Test
  void namesGrpcJavaHasNotRegisteredAreRegisteredOnceWithTernsKindAndLabels() {
    String name = "grpc.lb.wrr.endpoint_weights";
    RecordingGrpcJavaSink sink = RecordingGrpcJavaSink.enabling(name);
    RecordingGrpcJavaSink other = RecordingGrpcJavaSink.enabling(name);

    List<String> optional = List.of("{region=\"r\"}", "cluster-a");
    recorderFor(sink)
        .recordDoubleHistogram(
            MetricInstruments.WRR_ENDPOINT_WEIGHTS, 2.5, List.of(TARGET), optional);
    recorderFor(other)
        .recordDoubleHistogram(
            MetricInstruments.WRR_ENDPOINT_WEIGHTS, 0.0, List.of(TARGET), optional);

    String labels = " [" + TARGET + "] [{region=\"r\"}, cluster-a]";
    assertThat(sink.recordings()).containsExactly(name + " 2.5" + labels);
    assertThat(other.recordings()).containsExactly(name + " 0.0" + labels);
    List<io.grpc.MetricInstrument> registered = grpcJavaInstrumentsNamed(name);
    assertThat(registered).hasSize(1);
    io.grpc.MetricInstrument instrument = registered.get(0);
    assertThat(instrument).isInstanceOf(io.grpc.DoubleHistogramMetricInstrument.class);
    assertThat(instrument.getRequiredLabelKeys()).containsExactly("grpc.target");
    assertThat(instrument.getOptionalLabelKeys())
        .containsExactly("grpc.lb.locality", "grpc.lb.backend_service");
    assertThat(instrument.getUnit()).isEqualTo("{weight}");
    assertThat(instrument.isEnableByDefault()).isFalse();
  }

  @Test
  void gaugesReachTheSinkWhenItCollectsUntilTheRegistrationIsClosed() {
    RecordingGrpcJavaSink sink = RecordingGrpcJavaSink.enabling("grpc.xds_client.connected");
    List<String> labels = List.of(TARGET, "xds.example:443");

    MetricRecorder.Registration registration =
        recorderFor(sink)
            .registerBatchCallback(
                recorder -> {
                  recorder.recordLongGauge(
                      MetricInstruments.XDS_CLIENT_CONNECTED, 1, labels, List.of());
                  // Not a gauge of this callback: dropped, as grpc-java's batch recorder drops it.
                  recorder.recordLongGauge(
                      MetricInstruments.XDS_CLIENT_RESOURCES,
                      7,
                      List.of(TARGET, "#old", "acked", "envoy.config.listener.v3.Listener"),
                      List.of());
                },
                MetricInstruments.XDS_CLIENT_CONNECTED);
    assertThat(sink.recordings()).isEmpty();

    sink.collect();
    sink.collect();
    String line = "grpc.xds_client.connected 1 [" + TARGET + ", xds.example:443] []";
    assertThat(sink.recordings()).containsExactly(line, line);
    assertThat(sink.instruments().get(0)).isInstanceOf(io.grpc.LongGaugeMetricInstrument.class);

    registration.close();
    sink.collect();
    assertThat(sink.recordings()).hasSize(2);
  }

  @Test
  void gaugesTheSinkDoesNotEnableRegisterNoCallback() {
    RecordingGrpcJavaSink sink = RecordingGrpcJavaSink.enabling();
    recorderFor(sink)
        .registerBatchCallback(
            recorder -> {
              throw new AssertionError("collected a gauge the sink did not enable");
            },
            MetricInstruments.XDS_CLIENT_CONNECTED);

    sink.collect();

    assertThat(sink.recordings()).isEmpty();
  }

  @Test
  void onlyTheMetricsTheSinkEnablesAreRecorded() {
    MetricInstrument onByDefault =
        MetricInstrumentRegistry.getDefaultRegistry()
            .register(
                MetricInstrument.Kind.LONG_COUNTER,
                "tern.test.bridge.on_by_default",
                "A counter on by default.",
                "{event}",
                List.of(),
                List.of(),
                true);
    RecordingGrpcJavaSink defaults = new RecordingGrpcJavaSink(Map.of());
    RecordingGrpcJavaSink turnedOff =
        new RecordingGrpcJavaSink(Map.of("tern.test.bridge.on_by_default", false));

    for (RecordingGrpcJavaSink sink : List.of(defaults, turnedOff)) {
      MetricRecorder recorder = recorderFor(sink);
      recorder.addLongCounter(onByDefault, 3, List.of(), List.of());
      recorder.addLongCounter(
          MetricInstruments.SUBCHANNEL_DISCONNECTIONS, 1, List.of(TARGET), List.of("", "", "x"));
    }

    assertThat(defaults.recordings()).containsExactly("tern.test.bridge.on_by_default 3 [] []");
    assertThat(turnedOff.recordings()).isEmpty();
  }

  @Test
  void labelValuesGoByKeyWhenTheTwoRegistriesOrderThemDifferently() {
    String name = "tern.test.bridge.reordered";
    io.grpc.MetricInstrumentRegistry.getDefaultRegistry()
        .registerLongUpDownCounter(
            name, "grpc-java's order", "{item}", List.of("a", "b"), List.of("x", "y", "z"), false);
    MetricInstrument tern =
        MetricInstrumentRegistry.getDefaultRegistry()
            .register(
                MetricInstrument.Kind.LONG_UP_DOWN_COUNTER,
                name,
                "Tern's order",
                "{item}",
                List.of("b", "a"),
                List.of("z", "x", "y"),
                false);
    RecordingGrpcJavaSink sink = RecordingGrpcJavaSink.enabling(name);

    recorderFor(sink).addLongUpDownCounter(tern, -2, List.of("B", "A"), List.of("Z", "X", "Y"));

    assertThat(sink.recordings()).containsExactly(name + " -2 [A, B] [X, Y, Z]");
  }

  @Test
  void anInstrumentGrpcJavaRegisteredWithAnotherKindOrOtherLabelsIsSkippedWithOneWarning() {
    io.grpc.MetricInstrumentRegistry grpcJava =
        io.grpc.MetricInstrumentRegistry.getDefaultRegistry();
    grpcJava.registerLongGauge(
        "tern.test.bridge.kind", "A gauge in grpc-java", "{item}", List.of(), List.of(), false);
    grpcJava.registerLongCounter(
        "tern.test.bridge.labels", "Other labels", "{item}", List.of("a"), List.of(), false);
    MetricInstrumentRegistry ternRegistry = MetricInstrumentRegistry.getDefaultRegistry();
    MetricInstrument kind =
        ternRegistry.register(
            MetricInstrument.Kind.LONG_COUNTER,
            "tern.test.bridge.kind",
            "A counter in Tern",
            "{item}",
            List.of(),
            List.of(),
            false);
    MetricInstrument labels =
        ternRegistry.register(
            MetricInstrument.Kind.LONG_COUNTER,
            "tern.test.bridge.labels",
            "Other labels",
            "{item}",
            List.of("b"),
            List.of(),
            false);
    RecordingGrpcJavaSink sink =
        RecordingGrpcJavaSink.enabling("tern.test.bridge.kind", "tern.test.bridge.labels");

    try (LogCapture log = new LogCapture(GrpcJavaInstruments.class)) {
      MetricRecorder recorder = recorderFor(sink);
      for (int i = 0; i < 3; i++) {
        recorder.addLongCounter(kind, 1, List.of(), List.of());
        recorder.addLongCounter(labels, 1, List.of("b"), List.of());
      }

      assertThat(sink.recordings()).isEmpty();
      assertThat(log.records()).extracting(LogRecord::getLevel).containsOnly(Level.WARNING);
      assertThat(log.records())
          .extracting(LogRecord::getMessage)
          .containsExactly(
              "grpc-java metric sinks will not get tern.test.bridge.kind: Tern records it as a"
                  + " LONG_COUNTER with labels [] and optional labels [], grpc-java has a"
                  + " LongGaugeMetricInstrument with labels [] and optional labels []",
              "grpc-java metric sinks will not get tern.test.bridge.labels: Tern records it as a"
                  + " LONG_COUNTER with labels [b] and optional labels [], grpc-java has a"
                  + " LongCounterMetricInstrument with labels [a] and optional labels []");
    }
  }
}
