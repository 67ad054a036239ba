package dev.tern.examples.routeguide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.testtools.OtelCollector;
import dev.tern.testtools.PrometheusServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The route guide with OpenTelemetry on, as {@code --otlp} and {@code --prometheus-port} set it up,
 * against the real back-ends: a real OpenTelemetry Collector receives the server's and the client's
 * metrics and spans (read back from its debug exporter's output), and a real Prometheus scrapes the
 * server and answers a PromQL query.
 */
class RouteGuideTelemetryTest {
  private static final String GET_FEATURE = "tern.examples.routeguide.RouteGuide/GetFeature";

  private static final List<String> METRICS =
      List.of(
          "grpc.client.attempt.started",
          "grpc.client.attempt.duration",
          "grpc.client.attempt.sent_total_compressed_message_size",
          "grpc.client.attempt.rcvd_total_compressed_message_size",
          "grpc.client.call.duration",
          "grpc.server.call.started",
          "grpc.server.call.duration",
          "grpc.server.call.sent_total_compressed_message_size",
          "grpc.server.call.rcvd_total_compressed_message_size");

  /**
   * Whether the output holds every metric and, for both GetFeature calls, the whole trace (call,
   * attempt and server span), each span printed up to its kind.
   */
  private static boolean complete(String output) {
    for (String metric : METRICS) {
      if (!output.contains("Name: " + metric + "\n")) {
        return false;
      }
    }
    if (!output.contains("grpc.method: Str(" + GET_FEATURE + ")")) {
      return false;
    }
    List<ExportedSpan> spans = parseSpans(output);
    long complete =
        spans.stream()
            .filter(s -> s.name().equals("Sent.tern.examples.routeguide.RouteGuide.GetFeature"))
            .filter(
                call ->
                    spans.stream()
                        .filter(a -> a.parentId().equals(call.id()))
                        .anyMatch(
                            attempt ->
                                spans.stream().anyMatch(r -> r.parentId().equals(attempt.id()))))
            .count();
    return complete == 2;
  }

  /** One span as the debug exporter prints it. */
  private record ExportedSpan(
      String service, String traceId, String parentId, String id, String name, String kind) {}

  @Test
  void theCollectorGetsBothSidesMetricsAndOneTracePerCall() throws Exception {
    try (OtelCollector collector = OtelCollector.start()) {
      String endpoint = collector.otlpHttpEndpoint();
      Telemetry serverTelemetry = new Telemetry("routeguide-server", endpoint, -1);
      Server server = null;
      try {
        server = RouteGuideServer.start(0, new HealthStatusManager(), serverTelemetry.grpc());
        try (Telemetry clientTelemetry = new Telemetry("routeguide-client", endpoint, -1)) {
          RouteGuideClient.runTour(
              "127.0.0.1:" + server.getPort(), clientTelemetry.grpc(), quietOutput());
        } // closing exports what the client still buffers
      } finally {
        if (server != null) {
          server.shutdown();
          assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        serverTelemetry.close();
      }

      // The debug exporter prints each batch line by line: wait until everything checked below
      // has arrived, not just the first lines of it.
      String output =
          collector.awaitOutput(RouteGuideTelemetryTest::complete, Duration.ofSeconds(30));

      for (String metric : METRICS) {
        assertThat(output).contains("Name: " + metric);
      }
      assertThat(output).contains("grpc.method: Str(" + GET_FEATURE + ")");

      // Each GetFeature call is one trace: the client's call span, its attempt, and the server's
      // span under the attempt, from two processes' worth of SDKs.
      List<ExportedSpan> spans = parseSpans(output);
      List<ExportedSpan> calls =
          spans.stream()
              .filter(s -> s.name().equals("Sent.tern.examples.routeguide.RouteGuide.GetFeature"))
              .toList();
      assertThat(calls).hasSize(2).allMatch(s -> s.service().equals("routeguide-client"));
      for (ExportedSpan call : calls) {
        ExportedSpan attempt =
            spans.stream()
                .filter(s -> s.parentId().equals(call.id()))
                .filter(s -> s.name().startsWith("Attempt."))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no attempt under " + call));
        ExportedSpan recv =
            spans.stream()
                .filter(s -> s.parentId().equals(attempt.id()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no server span under " + attempt));
        assertThat(recv.name()).isEqualTo("Recv.tern.examples.routeguide.RouteGuide.GetFeature");
        assertThat(recv.service()).isEqualTo("routeguide-server");
        assertThat(recv.kind()).isEqualTo("Server");
        assertThat(attempt.kind()).isEqualTo("Client");
        assertThat(List.of(attempt.traceId(), recv.traceId())).containsOnly(call.traceId());
      }
    }
  }

  @Test
  void prometheusScrapesTheServerAndAnswersForItsCalls() throws Exception {
    int[] port = new int[1];
    Telemetry telemetry = withFreePort(p -> new Telemetry("routeguide-server", null, p), port);
    Server server = null;
    try {
      server = RouteGuideServer.start(0, new HealthStatusManager(), telemetry.grpc());
      RouteGuideClient.runTour("127.0.0.1:" + server.getPort(), null, quietOutput());

      try (PrometheusServer prometheus = PrometheusServer.start(List.of("127.0.0.1:" + port[0]))) {
        String query =
            "sum(grpc_server_call_duration_seconds_count{grpc_method=\""
                + GET_FEATURE
                + "\",grpc_status=\"OK\"})";
        List<PrometheusServer.Sample> samples =
            prometheus.awaitQuery(
                query, s -> !s.isEmpty() && s.get(0).value() == 2.0, Duration.ofSeconds(30));
        assertThat(samples).singleElement().satisfies(s -> assertThat(s.value()).isEqualTo(2.0));
        // the histogram's buckets are A66's: 0, 10 us, ..., 100 s, then +Inf
        List<Double> bounds =
            prometheus
                .querySamples(
                    "grpc_server_call_duration_seconds_bucket{grpc_method=\"" + GET_FEATURE + "\"}")
                .stream()
                .map(sample -> sample.labels().get("le"))
                .map(le -> le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le))
                .sorted()
                .toList();
        assertThat(bounds)
            .hasSize(42)
            .startsWith(0.0, 0.00001, 0.00005)
            .endsWith(100.0, Double.POSITIVE_INFINITY);
      }
    } finally {
      if (server != null) {
        server.shutdownNow();
        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
      telemetry.close();
    }
  }

  /**
   * Makes the Prometheus endpoint on a port the OS says is free (the exporter cannot report a port
   * it picked itself), trying again if another process takes the port first.
   */
  private static Telemetry withFreePort(
      java.util.function.IntFunction<Telemetry> make, int[] portOut) throws IOException {
    UncheckedIOException last = null;
    for (int i = 0; i < 5; i++) {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
        port = socket.getLocalPort();
      }
      try {
        Telemetry telemetry = make.apply(port);
        portOut[0] = port;
        return telemetry;
      } catch (UncheckedIOException e) {
        last = e;
      }
    }
    throw last;
  }

  private static PrintStream quietOutput() {
    return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
  }

  /** The spans in the debug exporter's detailed output, each with its resource's service name. */
  private static List<ExportedSpan> parseSpans(String output) {
    List<ExportedSpan> spans = new ArrayList<>();
    String service = null;
    String traceId = null;
    String parentId = null;
    String id = null;
    String name = null;
    for (String line : output.split("\n")) {
      String trimmed = line.trim();
      if (trimmed.startsWith("-> service.name: Str(")) {
        service = trimmed.substring("-> service.name: Str(".length(), trimmed.length() - 1);
      } else if (trimmed.startsWith("Trace ID")) {
        traceId = value(trimmed);
      } else if (trimmed.startsWith("Parent ID")) {
        parentId = value(trimmed);
      } else if (trimmed.startsWith("ID ")) {
        id = value(trimmed);
      } else if (trimmed.startsWith("Name ") && traceId != null) {
        name = value(trimmed);
      } else if (trimmed.startsWith("Kind ") && name != null) {
        spans.add(new ExportedSpan(service, traceId, parentId, id, name, value(trimmed)));
        traceId = parentId = id = name = null;
      }
    }
    return spans;
  }

  private static String value(String line) {
    int colon = line.indexOf(':');
    return colon < 0 ? "" : line.substring(colon + 1).trim();
  }
}
