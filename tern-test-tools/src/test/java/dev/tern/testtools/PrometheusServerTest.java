package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the real Prometheus: skipped where it is not installed, failed then under {@code CI=true}.
 * It scrapes a text exposition served by the JDK's HTTP server.
 */
class PrometheusServerTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private HttpServer exposition;
  private PrometheusServer prometheus;

  @BeforeEach
  void serveMetrics() throws IOException {
    exposition = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    exposition.createContext(
        "/metrics",
        exchange -> {
          byte[] body =
              ("# HELP tern_probe_total Probes served.\n"
                      + "# TYPE tern_probe_total counter\n"
                      + "tern_probe_total{method=\"Probe\"} 42\n")
                  .getBytes(UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    exposition.start();
  }

  @AfterEach
  void stop() {
    try {
      if (prometheus != null) {
        prometheus.close();
      }
    } finally {
      exposition.stop(0);
    }
  }

  @Test
  void scrapesTheGivenTargetAndAnswersQueries() throws IOException {
    String target = "127.0.0.1:" + exposition.getAddress().getPort();
    prometheus = PrometheusServer.start(List.of(target));

    List<PrometheusServer.Sample> samples =
        prometheus.awaitQuery("tern_probe_total", s -> !s.isEmpty(), TIMEOUT);

    assertThat(samples)
        .containsExactly(
            new PrometheusServer.Sample(
                Map.of(
                    "__name__", "tern_probe_total",
                    "method", "Probe",
                    "job", "tern",
                    "instance", target),
                42));
    assertThat(prometheus.querySamples("sum(tern_probe_total) * 2"))
        .containsExactly(new PrometheusServer.Sample(Map.of(), 84));
    assertThat(prometheus.query("up")).contains("\"status\":\"success\"");
  }

  @Test
  void aQueryPrometheusRejectsIsAnIllegalArgument() throws IOException {
    prometheus = PrometheusServer.start(List.of());

    assertThatThrownBy(() -> prometheus.query("sum(("))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("promql: Prometheus rejected \"sum((\"")
        .hasMessageContaining("parse error");
  }

  @Test
  void closeStopsTheProcessAndDeletesItsFiles() throws IOException {
    prometheus = PrometheusServer.start(List.of());
    ProcessHandle process = ProcessHandle.of(prometheus.pid()).orElseThrow();
    Path directory = prometheus.directory();
    assertThat(directory.resolve("prometheus.yml")).exists();
    assertThat(directory.resolve("data")).isDirectory();
    assertThat(prometheus.url()).isEqualTo("http://127.0.0.1:" + prometheus.port());

    prometheus.close();

    assertThat(process.isAlive()).isFalse();
    assertThat(Files.exists(directory)).isFalse();
    prometheus.close(); // idempotent
  }

  @Test
  void aTakenPortIsGivenUpForAnother() throws IOException {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      AtomicInteger asked = new AtomicInteger();

      prometheus =
          PrometheusServer.start(
              List.of(),
              "/metrics",
              () -> asked.getAndIncrement() == 0 ? taken.getLocalPort() : ToolProcess.freePort());

      assertThat(asked.get()).isEqualTo(2);
      assertThat(prometheus.port()).isNotEqualTo(taken.getLocalPort());
      assertThat(prometheus.query("vector(1)")).contains("\"status\":\"success\"");
    }
  }

  @Test
  void targetsAreCheckedBeforeAnythingStarts() {
    assertThatThrownBy(() -> PrometheusServer.start(List.of("http://127.0.0.1:9464/metrics")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("targets: not host:port");
    assertThatThrownBy(() -> PrometheusServer.start(List.of("127.0.0.1:1\"]")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PrometheusServer.start(List.of(), "metrics"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("metricsPath");
    assertThat(PrometheusServer.config(List.of("127.0.0.1:9464", "[::1]:9465"), "/prom"))
        .contains("  scrape_interval: 1s\n")
        .contains("    metrics_path: \"/prom\"\n")
        .contains("      - targets: [\"127.0.0.1:9464\", \"[::1]:9465\"]\n");
  }

  @Test
  void readsVectorsAndScalarsFromTheQueryApi() {
    String vector =
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
            + "{\"metric\":{\"__name__\":\"a\",\"job\":\"tern\"},\"value\":[1700000000.5,\"1.5\"]},"
            + "{\"metric\":{},\"value\":[1700000000.5,\"+Inf\"]}]}}";
    assertThat(PrometheusServer.samples("a", vector))
        .containsExactly(
            new PrometheusServer.Sample(Map.of("__name__", "a", "job", "tern"), 1.5),
            new PrometheusServer.Sample(Map.of(), Double.POSITIVE_INFINITY));
    assertThat(
            PrometheusServer.samples(
                "1",
                "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\","
                    + "\"result\":[1700000000,\"NaN\"]}}"))
        .singleElement()
        .satisfies(s -> assertThat(s.value()).isNaN());
    assertThatThrownBy(
            () ->
                PrometheusServer.samples(
                    "a[1m]",
                    "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gives a matrix");
  }
}
