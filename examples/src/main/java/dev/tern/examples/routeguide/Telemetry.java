package dev.tern.examples.routeguide;

import dev.tern.opentelemetry.GrpcOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.prometheus.PrometheusHttpServer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.SdkMeterProviderBuilder;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SdkTracerProviderBuilder;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.time.Duration;

/**
 * The examples' OpenTelemetry set-up: an SDK that exports metrics and spans over OTLP/HTTP to a
 * Collector ({@code --otlp=http://127.0.0.1:4318}) and, for a server, serves its metrics to
 * Prometheus ({@code --prometheus-port=9464}), with {@link GrpcOpenTelemetry} on top. What a real
 * service would write once at start-up.
 *
 * <p>Thread-safe (the SDK is). Close it to flush what is still buffered.
 */
final class Telemetry implements AutoCloseable {
  private final OpenTelemetrySdk sdk;
  private final GrpcOpenTelemetry grpc;

  /**
   * @param serviceName the {@code service.name} resource attribute
   * @param otlpEndpoint the Collector's OTLP/HTTP base URL, or null for none
   * @param prometheusPort the port of a Prometheus scrape endpoint on 127.0.0.1, or -1 for none
   */
  Telemetry(String serviceName, String otlpEndpoint, int prometheusPort) {
    Resource resource =
        Resource.getDefault()
            .merge(
                Resource.create(
                    Attributes.of(AttributeKey.stringKey("service.name"), serviceName)));
    SdkMeterProviderBuilder meters = SdkMeterProvider.builder().setResource(resource);
    SdkTracerProviderBuilder tracers = SdkTracerProvider.builder().setResource(resource);
    if (otlpEndpoint != null) {
      meters.registerMetricReader(
          PeriodicMetricReader.builder(
                  OtlpHttpMetricExporter.builder()
                      .setEndpoint(otlpEndpoint + "/v1/metrics")
                      .build())
              .setInterval(Duration.ofSeconds(5))
              .build());
      tracers.addSpanProcessor(
          BatchSpanProcessor.builder(
                  OtlpHttpSpanExporter.builder().setEndpoint(otlpEndpoint + "/v1/traces").build())
              .build());
    }
    if (prometheusPort >= 0) {
      meters.registerMetricReader(
          PrometheusHttpServer.builder().setHost("127.0.0.1").setPort(prometheusPort).build());
    }
    sdk =
        OpenTelemetrySdk.builder()
            .setMeterProvider(meters.build())
            .setTracerProvider(tracers.build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    grpc = GrpcOpenTelemetry.newBuilder().sdk(sdk).build();
  }

  /** What configures channel and server builders. */
  GrpcOpenTelemetry grpc() {
    return grpc;
  }

  /** Exports what is buffered and stops the exporters (and the Prometheus endpoint). */
  @Override
  public void close() {
    sdk.close();
  }
}
