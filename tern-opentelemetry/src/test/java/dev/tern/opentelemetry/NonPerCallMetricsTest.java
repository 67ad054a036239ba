package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.MetricInstrument;
import dev.tern.MetricInstrumentRegistry;
import dev.tern.MetricRecorder;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.TernCleanupExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The non-per-call metrics of gRFC A79 through the OpenTelemetry SDK, over Netty: A94's subchannel
 * metrics are off until enabled by name, then arrive with their unit and labels; optional labels
 * only when asked for.
 */
class NonPerCallMetricsTest {
  private static final List<String> SUBCHANNEL_METRICS =
      List.of(
          "grpc.subchannel.connection_attempts_succeeded",
          "grpc.subchannel.connection_attempts_failed",
          "grpc.subchannel.disconnections",
          "grpc.subchannel.open_connections");

  /** A plug-in's gauge (A79 lets components register their own), off by default. */
  private static final MetricInstrument PLUGIN_GAUGE =
      MetricInstrumentRegistry.getDefaultRegistry()
          .register(
              MetricInstrument.Kind.LONG_GAUGE,
              "tern.test.queue_length",
              "A plug-in's queue length.",
              "{item}",
              List.of("grpc.target"),
              List.of("tern.test.shard"),
              false);

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void aPluginGaugeIsReadAtEachCollectionUntilItsRegistrationCloses() {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
            .build()) {
      GrpcOpenTelemetry otel =
          GrpcOpenTelemetry.newBuilder()
              .sdk(sdk)
              .enableMetrics(List.of("tern.test.queue_length"))
              .build();
      MetricRecorder recorder = MetricRecorder.of("dns:///q", List.of(otel.metricSink()));
      long[] length = {3};
      MetricRecorder.Registration registration =
          recorder.registerBatchCallback(
              r -> r.recordLongGauge(PLUGIN_GAUGE, length[0], List.of("dns:///q"), List.of("a")),
              PLUGIN_GAUGE);
      assertThat(gauge(reader)).containsExactly(3L);
      length[0] = 5;
      assertThat(gauge(reader)).containsExactly(5L);
      registration.close();
      assertThat(gauge(reader)).isEmpty();
    }
  }

  /** The gauge's values at a collection; its one attribute is the target (shard not asked for). */
  private static List<Long> gauge(InMemoryMetricReader reader) {
    return reader.collectAllMetrics().stream()
        .filter(m -> m.getName().equals("tern.test.queue_length"))
        .flatMap(m -> m.getLongGaugeData().getPoints().stream())
        .peek(
            p ->
                assertThat(p.getAttributes())
                    .isEqualTo(Attributes.of(AttributeKey.stringKey("grpc.target"), "dns:///q")))
        .map(LongPointData::getValue)
        .toList();
  }

  @Test
  void subchannelMetricsAreOffByDefault() throws Exception {
    try (OtelFixture fixture = new OtelFixture(cleanup)) {
      ClientCalls.blockingUnaryCall(fixture.channel, OtelFixture.UNARY, CallOptions.DEFAULT, "hi");
      Map<String, MetricData> metrics = fixture.collect();
      assertThat(metrics).containsKey("grpc.client.attempt.started");
      assertThat(metrics.keySet()).noneMatch(name -> name.startsWith("grpc.subchannel."));
    }
  }

  @Test
  void enabledSubchannelMetricsCountTheConnectionWithTheTargetAndAskedForLabels() throws Exception {
    try (OtelFixture fixture =
        new OtelFixture(
            cleanup,
            io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator.getInstance(),
            b ->
                b.enableMetrics(SUBCHANNEL_METRICS)
                    .addOptionalLabel("grpc.security_level")
                    .addOptionalLabel("grpc.disconnect_error"))) {
      ClientCalls.blockingUnaryCall(fixture.channel, OtelFixture.UNARY, CallOptions.DEFAULT, "hi");
      Attributes target = Attributes.of(AttributeKey.stringKey("grpc.target"), fixture.target());

      Map<String, MetricData> metrics = fixture.collect();
      MetricData succeeded = metrics.get("grpc.subchannel.connection_attempts_succeeded");
      assertThat(succeeded.getUnit()).isEqualTo("{attempt}");
      assertThat(point(succeeded).getAttributes()).isEqualTo(target);
      assertThat(point(succeeded).getValue()).isEqualTo(1);
      MetricData open = metrics.get("grpc.subchannel.open_connections");
      assertThat(open.getUnit()).isEqualTo("{connection}");
      assertThat(point(open).getValue()).isEqualTo(1);
      assertThat(point(open).getAttributes())
          .isEqualTo(
              target.toBuilder()
                  .put("grpc.security_level", "none")
                  .build()); // plaintext; locality and backend service were not asked for
      assertThat(metrics).doesNotContainKey("grpc.subchannel.disconnections");

      fixture.channel.shutdown();
      assertThat(fixture.channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      metrics = fixture.collect();
      assertThat(point(metrics.get("grpc.subchannel.open_connections")).getValue()).isZero();
      MetricData disconnections = metrics.get("grpc.subchannel.disconnections");
      assertThat(point(disconnections).getValue()).isEqualTo(1);
      assertThat(point(disconnections).getAttributes())
          .isEqualTo(
              target.toBuilder().put("grpc.disconnect_error", "subchannel shutdown").build());
      assertThat(metrics).doesNotContainKey("grpc.subchannel.connection_attempts_failed");
    }
  }

  @Test
  void unknownMetricNamesAndOptionalLabelsAreRefusedNamingThem() {
    assertThatThrownBy(
            () -> GrpcOpenTelemetry.newBuilder().enableMetrics(List.of("grpc.subchannel.nope")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'grpc.subchannel.nope'")
        .hasMessageContaining("grpc.subchannel.open_connections");
    assertThatThrownBy(() -> GrpcOpenTelemetry.newBuilder().addOptionalLabel("grpc.lb.zone"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'grpc.lb.zone'");
  }

  private static LongPointData point(MetricData metric) {
    assertThat(metric).isNotNull();
    List<LongPointData> points =
        metric.getData().getPoints().stream().map(p -> (LongPointData) p).toList();
    assertThat(points).hasSize(1);
    return points.get(0);
  }
}
