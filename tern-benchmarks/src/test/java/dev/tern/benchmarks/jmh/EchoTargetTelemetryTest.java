package dev.tern.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * CallBenchmark's {@code otel=true} measures what it claims: for each system, transport and
 * executor, one unary call through an {@link EchoTarget} built with a {@link BenchTelemetry} shows
 * up in the client's and the server's metrics and ends its client, attempt and server spans. The
 * test's SDK is the benchmark's except that ended spans are kept (the benchmark drops them).
 */
class EchoTargetTelemetryTest {
  private static final AttributeKey<String> METHOD = AttributeKey.stringKey("grpc.method");
  private static final AttributeKey<String> STATUS = AttributeKey.stringKey("grpc.status");
  private static final String UNARY = "bench.Echo/Unary";

  @ParameterizedTest(name = "{0} over {1}, direct executor {2}")
  @CsvSource({
    "tern, inprocess, true",
    "tern, inprocess, false",
    "tern, netty, true",
    "tern, netty, false",
    "grpc-java, inprocess, true",
    "grpc-java, inprocess, false",
    "grpc-java, netty, true",
    "grpc-java, netty, false",
  })
  void oneUnaryCallIsCountedTimedAndTraced(String system, String transport, boolean direct)
      throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    try (BenchTelemetry telemetry = BenchTelemetry.exportingSpansTo(spans)) {
      EchoTarget.Options options =
          new EchoTarget.Options(
              direct, false, false, telemetry, EchoTarget.DEFAULT_MAX_INBOUND_MESSAGE_SIZE);
      EchoTarget target = EchoTarget.create(system, transport, options);
      byte[] echo;
      try {
        echo = target.unary(new byte[1024]);
      } finally {
        // Waits for the server and channel to terminate: every call's recording has finished.
        target.shutdown();
      }
      assertThat(echo).hasSize(1024);

      Map<String, MetricData> metrics =
          telemetry.metrics().collectAllMetrics().stream()
              .collect(Collectors.toMap(MetricData::getName, Function.identity()));
      assertThat(started(metrics, "grpc.client.attempt.started")).isEqualTo(1);
      assertThat(started(metrics, "grpc.server.call.started")).isEqualTo(1);
      assertThat(okCalls(metrics, "grpc.client.attempt.duration")).isEqualTo(1);
      assertThat(okCalls(metrics, "grpc.client.call.duration")).isEqualTo(1);
      assertThat(okCalls(metrics, "grpc.server.call.duration")).isEqualTo(1);

      assertThat(spans.getFinishedSpanItems())
          .extracting(SpanData::getName)
          .contains("Sent.bench.Echo.Unary", "Attempt.bench.Echo.Unary", "Recv.bench.Echo.Unary");
    }
  }

  /** The count of a {@code *.started} counter for the unary method. */
  private static long started(Map<String, MetricData> metrics, String name) {
    assertThat(metrics).containsKey(name);
    return metrics.get(name).getLongSumData().getPoints().stream()
        .filter(p -> UNARY.equals(p.getAttributes().get(METHOD)))
        .mapToLong(LongPointData::getValue)
        .sum();
  }

  /** How many unary calls a duration histogram recorded with status OK. */
  private static long okCalls(Map<String, MetricData> metrics, String name) {
    assertThat(metrics).containsKey(name);
    return metrics.get(name).getHistogramData().getPoints().stream()
        .filter(p -> isOkUnary(p.getAttributes()))
        .mapToLong(HistogramPointData::getCount)
        .sum();
  }

  private static boolean isOkUnary(Attributes attributes) {
    return UNARY.equals(attributes.get(METHOD)) && "OK".equals(attributes.get(STATUS));
  }
}
