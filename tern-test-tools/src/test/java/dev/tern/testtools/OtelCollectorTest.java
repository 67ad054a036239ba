package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the real collector ({@code otelcol-tern}): skipped where it is not installed, failed then
 * under {@code CI=true}. Sends it OTLP/HTTP in JSON, which needs no OpenTelemetry library.
 */
class OtelCollectorTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final String TRACE_ID = "5b8efff798038103d269b633813fc60c";
  private static final String SPAN_ID = "eee19b7ec3c1b174";

  private final HttpClient http = HttpClient.newHttpClient();
  private OtelCollector collector;

  @AfterEach
  void closeCollector() {
    if (collector != null) {
      collector.close();
    }
  }

  @Test
  void printsASpanPostedOverOtlpHttp() throws IOException {
    collector = OtelCollector.start();

    HttpResponse<String> response =
        post(
            "/v1/traces",
            "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\","
                + "\"value\":{\"stringValue\":\"tern-probe\"}}]},"
                + "\"scopeSpans\":[{\"scope\":{\"name\":\"dev.tern.testing\"},"
                + "\"spans\":[{\"traceId\":\""
                + TRACE_ID
                + "\",\"spanId\":\""
                + SPAN_ID
                + "\",\"name\":\"tern.probe/Span\",\"kind\":2,"
                + "\"startTimeUnixNano\":\"1700000000000000000\","
                + "\"endTimeUnixNano\":\"1700000000100000000\"}]}]}]}");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    String output =
        collector.awaitOutput(out -> out.contains("Name           : tern.probe/Span"), TIMEOUT);
    assertThat(output)
        .contains("Trace ID       : " + TRACE_ID)
        .contains("ID             : " + SPAN_ID)
        .contains("service.name: Str(tern-probe)");
  }

  @Test
  void printsAMetricPostedOverOtlpHttp() throws IOException {
    collector = OtelCollector.start();

    HttpResponse<String> response =
        post(
            "/v1/metrics",
            "{\"resourceMetrics\":[{\"resource\":{},\"scopeMetrics\":[{\"scope\":"
                + "{\"name\":\"dev.tern.testing\"},\"metrics\":[{\"name\":\"tern.probe.requests\","
                + "\"unit\":\"{request}\",\"sum\":{\"aggregationTemporality\":2,"
                + "\"isMonotonic\":true,\"dataPoints\":[{\"asInt\":\"42\","
                + "\"startTimeUnixNano\":\"1700000000000000000\","
                + "\"timeUnixNano\":\"1700000001000000000\"}]}}]}]}]}");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    // The exporter prints a batch line by line: wait for its last line we check, not its first.
    String output =
        collector.awaitOutput(
            out -> out.contains("-> Name: tern.probe.requests") && out.contains("Value: 42"),
            TIMEOUT);
    assertThat(output).contains("-> DataType: Sum");
  }

  @Test
  void listensForOtlpOverGrpcAndHttpOnLoopback() throws IOException {
    collector = OtelCollector.start();

    assertThat(collector.grpcPort()).isNotEqualTo(collector.httpPort());
    assertThat(collector.otlpGrpcEndpoint()).isEqualTo("http://127.0.0.1:" + collector.grpcPort());
    assertThat(collector.otlpHttpEndpoint()).isEqualTo("http://127.0.0.1:" + collector.httpPort());
    for (int port : new int[] {collector.grpcPort(), collector.httpPort()}) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), (int) TIMEOUT.toMillis());
      }
    }
    assertThat(collector.output())
        .contains(OtelCollector.READY)
        .contains("\"endpoint\": \"127.0.0.1:" + collector.grpcPort() + "\"")
        .contains("\"endpoint\": \"127.0.0.1:" + collector.httpPort() + "\"");
  }

  @Test
  void closeStopsTheProcessAndDeletesItsConfiguration() throws IOException {
    collector = OtelCollector.start();
    ProcessHandle process = ProcessHandle.of(collector.pid()).orElseThrow();
    Path directory = collector.directory();
    assertThat(directory.resolve("config.yaml")).exists();

    collector.close();

    assertThat(process.isAlive()).isFalse();
    assertThat(Files.exists(directory)).isFalse();
    // Not asserted: "Shutdown complete". The Collector installs its SIGTERM handler only after it
    // logs "Everything is ready", so a close right after start may end it by the signal's default
    // action, silently (a CI run saw that).
    collector.close(); // idempotent
  }

  @Test
  void aTakenPortIsGivenUpForOthers() throws IOException {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      AtomicInteger asked = new AtomicInteger();

      collector =
          OtelCollector.start(
              () -> asked.getAndIncrement() == 0 ? taken.getLocalPort() : ToolProcess.freePort());

      assertThat(asked.get()).isGreaterThanOrEqualTo(4);
      assertThat(collector.grpcPort()).isNotEqualTo(taken.getLocalPort());
      assertThat(collector.output()).contains(OtelCollector.READY);
    }
  }

  @Test
  void awaitOutputFailsWithTheOutputWhenTheTextDoesNotCome() throws IOException {
    collector = OtelCollector.start();

    assertThatThrownBy(() -> collector.awaitOutput("never printed", Duration.ofMillis(200)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("did not print \"never printed\"")
        .hasMessageContaining(OtelCollector.READY);
  }

  @Test
  void configurationTurnsOffTheCollectorsOwnMetricsPort() {
    assertThat(OtelCollector.config(4317, 4318))
        .contains("endpoint: 127.0.0.1:4317\n")
        .contains("endpoint: 127.0.0.1:4318\n")
        .contains("verbosity: detailed\n")
        .contains("    metrics:\n      level: none\n");
  }

  private HttpResponse<String> post(String path, String json) throws IOException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(collector.otlpHttpEndpoint() + path))
            .header("Content-Type", "application/json")
            .timeout(TIMEOUT)
            .POST(HttpRequest.BodyPublishers.ofString(json, UTF_8))
            .build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException();
    }
  }
}
