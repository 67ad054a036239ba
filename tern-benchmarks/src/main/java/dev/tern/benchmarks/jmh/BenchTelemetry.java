package dev.tern.benchmarks.jmh;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;

/**
 * The OpenTelemetry SDK of {@code otel} runs, the same for Tern and for grpc-java: a meter provider
 * whose only reader keeps cumulative sums in memory and is never collected while the benchmark runs
 * (so every call is aggregated, and nothing is exported), and a tracer provider with the default
 * always-on sampler whose spans go, one by one as they end, to an exporter that drops them; W3C
 * {@code traceparent} propagation. What the benchmark measures is therefore the cost of recording a
 * call's metrics and spans, not of exporting them.
 *
 * <p>Thread-safe (the SDK is); made and closed by one JMH state.
 */
final class BenchTelemetry implements AutoCloseable {
  private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  private final OpenTelemetrySdk sdk;

  private BenchTelemetry(SpanExporter spans) {
    sdk =
        OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
  }

  /** The benchmark's SDK: spans are dropped as they end. */
  static BenchTelemetry create() {
    return new BenchTelemetry(DroppingSpanExporter.INSTANCE);
  }

  /** The same SDK with ended spans going to {@code spans} (tests look at them). */
  static BenchTelemetry exportingSpansTo(SpanExporter spans) {
    return new BenchTelemetry(spans);
  }

  OpenTelemetrySdk sdk() {
    return sdk;
  }

  /** The reader holding every metric recorded so far (collecting it is for tests, after a run). */
  InMemoryMetricReader metrics() {
    return metrics;
  }

  @Override
  public void close() {
    sdk.close();
  }

  /** Accepts ended spans and forgets them at once. Stateless; thread-safe. */
  private static final class DroppingSpanExporter implements SpanExporter {
    static final DroppingSpanExporter INSTANCE = new DroppingSpanExporter();

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }
}
