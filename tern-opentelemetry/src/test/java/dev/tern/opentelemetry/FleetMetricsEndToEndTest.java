package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.OtelCollector;
import dev.tern.testtools.PrometheusServer;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.exporter.prometheus.PrometheusHttpServer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.MetricReader;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fleet metrics (gRFC A94's subchannel metrics, A78's weighted_round_robin metrics) as an
 * operator sees them: a channel with weighted_round_robin over two Tern servers exports them, with
 * their labels, to a real OpenTelemetry Collector over OTLP (read back from its debug exporter) and
 * to a real Prometheus that scrapes the process and answers PromQL.
 */
class FleetMetricsEndToEndTest {
  private static final List<String> FLEET_METRICS =
      List.of(
          "grpc.subchannel.connection_attempts_succeeded",
          "grpc.subchannel.open_connections",
          "grpc.lb.wrr.rr_fallback",
          "grpc.lb.wrr.endpoint_weight_not_yet_usable",
          "grpc.lb.wrr.endpoint_weight_stale",
          "grpc.lb.wrr.endpoint_weights");

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** A Tern server on 127.0.0.1 answering {@link OtelFixture#UNARY} with the request. */
  static Server echoServer(TernCleanupExtension cleanup) throws IOException {
    return cleanup.register(
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                ServerServiceDefinition.builder(OtelFixture.SERVICE)
                    .addMethod(
                        OtelFixture.UNARY,
                        ServerCalls.asyncUnaryCall(
                            (String request, dev.tern.stub.StreamObserver<String> out) -> {
                              out.onNext(request);
                              out.onCompleted();
                            }))
                    .build())
            .build()
            .start());
  }

  /** Two echo servers, and a weighted_round_robin channel to both, made with {@code otel}. */
  private ManagedChannel channelToTwoServers(GrpcOpenTelemetry otel) throws IOException {
    StringBuilder target = new StringBuilder("ipv4:");
    for (int i = 0; i < 2; i++) {
      Server server = echoServer(cleanup);
      target.append(i == 0 ? "" : ",").append("127.0.0.1:").append(server.getPort());
    }
    ManagedChannelBuilder<?> builder =
        ManagedChannelBuilder.forTarget(target.toString())
            .usePlaintext()
            .defaultServiceConfigJson(
                "{\"loadBalancingConfig\": [{\"weighted_round_robin\": {}}]}");
    otel.configureChannelBuilder(builder);
    ManagedChannel channel = cleanup.register(builder.build());
    for (int i = 0; i < 4; i++) {
      ClientCalls.blockingUnaryCall(channel, OtelFixture.UNARY, CallOptions.DEFAULT, "hi " + i);
    }
    return channel;
  }

  /** An SDK exporting to {@code collector} over OTLP/HTTP every 5 s, and when it is closed. */
  static OpenTelemetrySdk exportingTo(OtelCollector collector) {
    return sdk(
        PeriodicMetricReader.builder(
                OtlpHttpMetricExporter.builder()
                    .setEndpoint(collector.otlpHttpEndpoint() + "/v1/metrics")
                    .build())
            .setInterval(Duration.ofSeconds(5))
            .build());
  }

  static OpenTelemetrySdk sdk(MetricReader reader) {
    return OpenTelemetrySdk.builder()
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
        .build();
  }

  private static GrpcOpenTelemetry otel(OpenTelemetrySdk sdk) {
    return GrpcOpenTelemetry.newBuilder()
        .sdk(sdk)
        .enableMetrics(FLEET_METRICS)
        .addOptionalLabel("grpc.security_level")
        .build();
  }

  @Test
  void theCollectorReceivesTheSubchannelAndWrrMetricsWithTheirLabels() throws Exception {
    try (OtelCollector collector = OtelCollector.start()) {
      OpenTelemetrySdk sdk = exportingTo(collector);
      try {
        channelToTwoServers(otel(sdk));
      } finally {
        sdk.close(); // exports what the reader holds
      }

      String output =
          collector.awaitOutput(
              out -> FLEET_METRICS.stream().allMatch(m -> out.contains("Name: " + m + "\n")),
              Duration.ofSeconds(30));
      for (String metric : FLEET_METRICS) {
        assertThat(output).contains("Name: " + metric + "\n");
      }
      assertThat(output)
          .contains("grpc.target: Str(ipv4:127.0.0.1:")
          .contains("grpc.security_level: Str(none)")
          .doesNotContain("grpc.lb.locality") // optional, not asked for
          .doesNotContain("grpc.subchannel.disconnections"); // not enabled
    }
  }

  @Test
  void prometheusScrapesOpenConnectionsAndWrrUpdatesByTarget() throws Exception {
    int[] port = new int[1];
    OpenTelemetrySdk sdk =
        withFreePort(
            port, p -> sdk(PrometheusHttpServer.builder().setHost("127.0.0.1").setPort(p).build()));
    try {
      channelToTwoServers(otel(sdk));
      try (PrometheusServer prometheus = PrometheusServer.start(List.of("127.0.0.1:" + port[0]))) {
        List<PrometheusServer.Sample> open =
            prometheus.awaitQuery(
                "sum by (grpc_target, grpc_security_level) (grpc_subchannel_open_connections)",
                s -> !s.isEmpty(),
                Duration.ofSeconds(30));
        assertThat(open)
            .singleElement()
            .satisfies(
                s -> {
                  assertThat(s.value()).isEqualTo(2.0); // one connection per server
                  assertThat(s.labels().get("grpc_target")).startsWith("ipv4:127.0.0.1:");
                  assertThat(s.labels()).containsEntry("grpc_security_level", "none");
                });
        List<PrometheusServer.Sample> notYetUsable =
            prometheus.querySamples("grpc_lb_wrr_endpoint_weight_not_yet_usable_total");
        // No server sends load reports: every update found every endpoint without a weight.
        assertThat(notYetUsable).singleElement().satisfies(s -> assertThat(s.value()).isPositive());
        assertThat(prometheus.querySamples("grpc_lb_wrr_rr_fallback_total"))
            .singleElement()
            .satisfies(s -> assertThat(s.value()).isPositive());
      }
    } finally {
      sdk.close();
    }
  }

  /**
   * An SDK with a Prometheus endpoint on a port the OS says is free (the exporter cannot report a
   * port it picked itself), made by {@code sdkOnPort}, trying again if another process takes the
   * port first.
   */
  static OpenTelemetrySdk withFreePort(int[] portOut, IntFunction<OpenTelemetrySdk> sdkOnPort)
      throws IOException {
    UncheckedIOException last = null;
    for (int i = 0; i < 5; i++) {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
        port = socket.getLocalPort();
      }
      try {
        OpenTelemetrySdk sdk = sdkOnPort.apply(port);
        portOut[0] = port;
        return sdk;
      } catch (UncheckedIOException e) {
        last = e;
      }
    }
    throw last;
  }
}
