package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.TernCleanupExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** gRFC A66's metrics from real calls over the Netty transport, read back from the SDK. */
class MetricsTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final List<Double> LATENCY =
      List.of(
          0.0, 0.00001, 0.00005, 0.0001, 0.0003, 0.0006, 0.0008, 0.001, 0.002, 0.003, 0.004, 0.005,
          0.006, 0.008, 0.01, 0.013, 0.016, 0.02, 0.025, 0.03, 0.04, 0.05, 0.065, 0.08, 0.1, 0.13,
          0.16, 0.2, 0.25, 0.3, 0.4, 0.5, 0.65, 0.8, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0);
  private static final List<Double> SIZE =
      List.of(
          0.0,
          1024.0,
          2048.0,
          4096.0,
          16384.0,
          65536.0,
          262144.0,
          1048576.0,
          4194304.0,
          16777216.0,
          67108864.0,
          268435456.0,
          1073741824.0,
          4294967296.0);

  private static String unary(OtelFixture fixture, String request, CallOptions options) {
    return ClientCalls.blockingUnaryCall(
        fixture.channel,
        OtelFixture.UNARY,
        options.withDeadlineAfter(10, TimeUnit.SECONDS),
        request);
  }

  private static Map<Attributes, HistogramPointData> histogram(MetricData metric) {
    return metric.getHistogramData().getPoints().stream()
        .collect(Collectors.toMap(HistogramPointData::getAttributes, p -> p));
  }

  private static Map<Attributes, Long> counter(MetricData metric) {
    return metric.getLongSumData().getPoints().stream()
        .collect(Collectors.toMap(LongPointData::getAttributes, LongPointData::getValue));
  }

  @Test
  void aCallIsRecordedWithA66sNamesUnitsBucketsAndAttributes() throws Exception {
    OtelFixture fixture = new OtelFixture(cleanup);
    String request = "x".repeat(1000);

    assertThat(unary(fixture, request, CallOptions.DEFAULT)).isEqualTo(request);
    fixture.awaitSpan("Recv.test.Otel.Unary"); // the server has recorded its metrics

    Map<String, MetricData> metrics = fixture.collect();
    assertThat(metrics.keySet())
        .containsExactlyInAnyOrder(
            "grpc.client.attempt.started",
            "grpc.client.attempt.duration",
            "grpc.client.attempt.sent_total_compressed_message_size",
            "grpc.client.attempt.rcvd_total_compressed_message_size",
            "grpc.client.call.duration",
            "grpc.server.call.started",
            "grpc.server.call.duration",
            "grpc.server.call.sent_total_compressed_message_size",
            "grpc.server.call.rcvd_total_compressed_message_size");
    Attributes client =
        Attributes.of(
            AttributeKey.stringKey("grpc.method"),
            "test.Otel/Unary",
            AttributeKey.stringKey("grpc.target"),
            fixture.target());
    Attributes clientOk =
        client.toBuilder().put(AttributeKey.stringKey("grpc.status"), "OK").build();
    Attributes server = Attributes.of(AttributeKey.stringKey("grpc.method"), "test.Otel/Unary");
    Attributes serverOk =
        server.toBuilder().put(AttributeKey.stringKey("grpc.status"), "OK").build();

    assertThat(counter(metrics.get("grpc.client.attempt.started"))).containsEntry(client, 1L);
    assertThat(counter(metrics.get("grpc.server.call.started"))).containsEntry(server, 1L);
    assertThat(metrics.get("grpc.client.attempt.started").getUnit()).isEqualTo("{attempt}");
    assertThat(metrics.get("grpc.server.call.started").getUnit()).isEqualTo("{call}");
    for (String name :
        List.of(
            "grpc.client.attempt.duration",
            "grpc.client.call.duration",
            "grpc.server.call.duration")) {
      MetricData metric = metrics.get(name);
      assertThat(metric.getUnit()).as(name).isEqualTo("s");
      HistogramPointData point =
          histogram(metric).get(name.startsWith("grpc.client") ? clientOk : serverOk);
      assertThat(point).as(name).isNotNull();
      assertThat(point.getCount()).isEqualTo(1);
      assertThat(point.getSum()).isPositive().isLessThan(10.0);
      assertThat(point.getBoundaries()).as(name).isEqualTo(LATENCY);
    }
    Map<String, Double> sizes =
        Map.of(
            "grpc.client.attempt.sent_total_compressed_message_size", 1000.0,
            "grpc.client.attempt.rcvd_total_compressed_message_size", 1000.0,
            "grpc.server.call.sent_total_compressed_message_size", 1000.0,
            "grpc.server.call.rcvd_total_compressed_message_size", 1000.0);
    sizes.forEach(
        (name, bytes) -> {
          MetricData metric = metrics.get(name);
          assertThat(metric.getUnit()).as(name).isEqualTo("By");
          HistogramPointData point =
              histogram(metric).get(name.startsWith("grpc.client") ? clientOk : serverOk);
          assertThat(point.getSum()).as(name).isEqualTo(bytes);
          assertThat(point.getBoundaries()).as(name).isEqualTo(SIZE);
        });
  }

  @Test
  void compressedMessagesCountTheirBytesOnTheWire() throws Exception {
    OtelFixture fixture = new OtelFixture(cleanup);
    String request = "q".repeat(1000);

    unary(fixture, request, CallOptions.DEFAULT.withCompression("gzip"));
    fixture.awaitSpan("Recv.test.Otel.Unary");

    Map<String, MetricData> metrics = fixture.collect();
    double clientSent =
        metrics
            .get("grpc.client.attempt.sent_total_compressed_message_size")
            .getHistogramData()
            .getPoints()
            .iterator()
            .next()
            .getSum();
    double serverReceived =
        metrics
            .get("grpc.server.call.rcvd_total_compressed_message_size")
            .getHistogramData()
            .getPoints()
            .iterator()
            .next()
            .getSum();
    assertThat(clientSent).isPositive().isLessThan(100.0);
    assertThat(serverReceived).isEqualTo(clientSent);
  }

  @Test
  void statusesUnknownMethodsAndHandMadeDescriptorsAreLabelledAsA66Says() throws Exception {
    OtelFixture fixture = new OtelFixture(cleanup);

    assertThatThrownBy(() -> unary(fixture, "fail", CallOptions.DEFAULT))
        .isInstanceOf(StatusRuntimeException.class);
    fixture.awaitSpan("Recv.test.Otel.Unary");
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    fixture.channel, OtelFixture.MISSING, CallOptions.DEFAULT, "hello"))
        .satisfies(
            e ->
                assertThat(((StatusRuntimeException) e).getStatus().getCode())
                    .isEqualTo(Status.Code.UNIMPLEMENTED));
    fixture.awaitSpan("Recv.test.Otel.Missing");
    ClientCalls.blockingUnaryCall(
        fixture.channel, OtelFixture.HAND_MADE, CallOptions.DEFAULT, "hello");
    fixture.awaitSpan("Recv.test.Otel.HandMade");

    Map<String, MetricData> metrics = fixture.collect();
    Set<String> clientLabels =
        histogram(metrics.get("grpc.client.call.duration")).keySet().stream()
            .map(a -> a.get(AttributeKey.stringKey("grpc.method")) + " " + status(a))
            .collect(Collectors.toSet());
    // the client names the generated methods it called, even one the server lacks
    assertThat(clientLabels)
        .containsExactlyInAnyOrder(
            "test.Otel/Unary INVALID_ARGUMENT", "test.Otel/Missing UNIMPLEMENTED", "other OK");
    Set<String> serverLabels =
        histogram(metrics.get("grpc.server.call.duration")).keySet().stream()
            .map(a -> a.get(AttributeKey.stringKey("grpc.method")) + " " + status(a))
            .collect(Collectors.toSet());
    // the server names only its generated methods: never one a client made up
    assertThat(serverLabels)
        .containsExactlyInAnyOrder(
            "test.Otel/Unary INVALID_ARGUMENT", "other UNIMPLEMENTED", "other OK");
    // an unknown method never started a call
    assertThat(counter(metrics.get("grpc.server.call.started")))
        .containsOnlyKeys(
            Attributes.of(AttributeKey.stringKey("grpc.method"), "test.Otel/Unary"),
            Attributes.of(AttributeKey.stringKey("grpc.method"), "other"));
  }

  private static String status(Attributes attributes) {
    return attributes.get(AttributeKey.stringKey("grpc.status"));
  }

  @Test
  void filtersAndPerCallAttributesChangeTheLabels() throws Exception {
    OtelFixture fixture =
        new OtelFixture(
            cleanup,
            W3CTraceContextPropagator.getInstance(),
            b ->
                b.targetAttributeFilter(target -> false)
                    .methodAttributeFilter(name -> name.endsWith("/HandMade")));

    ClientCalls.blockingUnaryCall(
        fixture.channel,
        OtelFixture.HAND_MADE,
        CallOptions.DEFAULT.withOption(
            GrpcOpenTelemetry.CALL_ATTRIBUTES,
            Attributes.of(AttributeKey.stringKey("tenant"), "blue")),
        "hello");
    fixture.awaitSpan("Recv.test.Otel.HandMade");

    Map<String, MetricData> metrics = fixture.collect();
    Iterator<Attributes> clientPoints =
        histogram(metrics.get("grpc.client.call.duration")).keySet().iterator();
    assertThat(clientPoints.next())
        .isEqualTo(
            Attributes.builder()
                .put("grpc.method", "test.Otel/HandMade")
                .put("grpc.target", "other")
                .put("grpc.status", "OK")
                .put("tenant", "blue")
                .build());
    assertThat(histogram(metrics.get("grpc.server.call.duration")).keySet())
        .containsExactly(
            Attributes.builder()
                .put("grpc.method", "test.Otel/HandMade")
                .put("grpc.status", "OK")
                .build());
  }

  @Test
  void aCallThatNeverMadeAnAttemptStillCountsOne() throws Exception {
    OtelFixture fixture = new OtelFixture(cleanup);

    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    fixture.channel,
                    OtelFixture.UNARY,
                    CallOptions.DEFAULT.withDeadlineAfter(-1, TimeUnit.SECONDS),
                    "late"))
        .isInstanceOf(StatusRuntimeException.class);

    Map<String, MetricData> metrics = fixture.collect();
    assertThat(counter(metrics.get("grpc.client.attempt.started")).values()).containsExactly(1L);
    assertThat(histogram(metrics.get("grpc.client.attempt.duration")).keySet())
        .extracting(MetricsTest::status)
        .containsExactly("DEADLINE_EXCEEDED");
    assertThat(histogram(metrics.get("grpc.client.call.duration")).keySet())
        .extracting(MetricsTest::status)
        .containsExactly("DEADLINE_EXCEEDED");
  }

  @Test
  void unknownMetricNamesAreRejectedByName() {
    assertThatThrownBy(
            () -> GrpcOpenTelemetry.newBuilder().enableMetrics(List.of("grpc.client.call.nope")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("grpc.client.call.nope");
    assertThatThrownBy(() -> GrpcOpenTelemetry.newBuilder().sdk(null)).hasMessageContaining("sdk");
  }

  @Test
  void disabledMetricsAreNotRecorded() throws Exception {
    OtelFixture fixture =
        new OtelFixture(
            cleanup,
            W3CTraceContextPropagator.getInstance(),
            b -> b.disableAllMetrics().enableMetrics(List.of("grpc.server.call.duration")));

    unary(fixture, "hello", CallOptions.DEFAULT);
    fixture.awaitSpan("Recv.test.Otel.Unary");

    assertThat(fixture.collect().keySet()).containsExactly("grpc.server.call.duration");
  }
}
