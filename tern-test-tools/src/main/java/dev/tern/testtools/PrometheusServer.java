package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.internal.config.JsonParser;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A real Prometheus server for tests: {@code /usr/bin/prometheus} (Debian's package, installed by
 * {@code tools/install-observability-tools.sh}) on 127.0.0.1, scraping the targets a test gives
 * every second, and asked through its HTTP query API.
 *
 * <pre>{@code
 * try (PrometheusServer prometheus = PrometheusServer.start(List.of("127.0.0.1:" + metricsPort))) {
 *   List<PrometheusServer.Sample> samples =
 *       prometheus.awaitQuery("tern_probe_total", s -> !s.isEmpty(), Duration.ofSeconds(20));
 *   assertThat(samples.get(0).value()).isEqualTo(42);
 * }
 * }</pre>
 *
 * <p>One scrape job, {@code tern}, over the static targets ({@code host:port}, at {@code /metrics}
 * unless told otherwise), with a scrape interval and timeout of one second. The server listens on a
 * port the OS said was free (Prometheus cannot bind port 0 and report it); a start that loses it to
 * another process is retried on another. Its configuration and its database live in a temporary
 * directory ({@link #directory()}), deleted by {@link #close()}, which also stops the process by
 * its PID. {@link #start} returns once {@code /-/ready} answers 200.
 *
 * <p>When Prometheus is not installed, {@link #start} skips the calling test, or fails it under
 * {@code CI=true} ({@link ExternalTool#require}).
 *
 * <p>Thread-safe: queries may be sent and the output read from any thread while the server runs;
 * {@link #close()} may be called from any thread, more than once.
 */
public final class PrometheusServer implements AutoCloseable {
  /**
   * How long a start or a stop may take. Prometheus starts in a second or two; this only bounds a
   * failure, generously because the build machines are small and shared.
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** How long one HTTP request to the server may take. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /**
   * How long one readiness question may take: a starting server answers at once or refuses the
   * connection; longer means something else holds the port and will not answer.
   */
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

  /**
   * Between two questions to a server that is not ready yet, or to a query whose answer is not yet
   * as hoped: the wait for the process to exit, which ends early if it does. Short next to the
   * scrape interval; polling a remote program, not synchronising threads.
   */
  private static final Duration POLL_INTERVAL = Duration.ofMillis(100);

  private static final String HOST = "[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?|\\[[0-9A-Fa-f:.]+]";
  private static final Pattern TARGET = Pattern.compile("(" + HOST + "):[0-9]{1,5}");
  private static final Pattern METRICS_PATH = Pattern.compile("/[A-Za-z0-9._~/-]*");

  /** One series of a query's answer: its labels (with {@code __name__}) and its value. */
  public record Sample(Map<String, String> labels, double value) {
    public Sample {
      labels = Map.copyOf(labels);
    }
  }

  private final ToolProcess process;
  private final Path directory;
  private final int port;
  private final HttpClient http;

  @GuardedBy("this")
  private boolean closed;

  private PrometheusServer(ToolProcess process, Path directory, int port, HttpClient http) {
    this.process = process;
    this.directory = directory;
    this.port = port;
    this.http = http;
  }

  /**
   * Starts Prometheus scraping {@code targets} ({@code host:port} each, such as {@code
   * 127.0.0.1:9464}) at {@code /metrics}; returns once it is ready.
   *
   * @throws IllegalArgumentException when a target is not {@code host:port}
   * @throws IOException when Prometheus does not start or exits, with its output in the message
   */
  public static PrometheusServer start(List<String> targets) throws IOException {
    return start(targets, "/metrics");
  }

  /**
   * {@link #start(List)} scraping {@code metricsPath} (such as {@code /metrics}) of each target.
   */
  public static PrometheusServer start(List<String> targets, String metricsPath)
      throws IOException {
    return start(targets, metricsPath, ToolProcess::freePort);
  }

  /**
   * {@link #start(List)} with the ports to try given by {@code ports} (tested with a taken one).
   */
  static PrometheusServer start(List<String> targets, String metricsPath, IntSupplier ports)
      throws IOException {
    String configText = config(targets, metricsPath);
    Path binary = ExternalTool.require(ExternalTool.PROMETHEUS);
    HttpClient http = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();
    Path directory = Files.createTempDirectory("tern-prometheus-");
    try {
      Path config = directory.resolve("prometheus.yml");
      Files.writeString(config, configText, UTF_8);
      for (int attempt = 1; ; attempt++) {
        int port = ports.getAsInt();
        ToolProcess process =
            ToolProcess.start(
                "prometheus",
                List.of(
                    binary.toString(),
                    "--config.file=" + config,
                    "--web.listen-address=127.0.0.1:" + port,
                    "--storage.tsdb.path=" + directory.resolve("data")));
        PrometheusServer server = new PrometheusServer(process, directory, port, http);
        boolean ready = false;
        try {
          ready = server.awaitReady();
        } finally {
          if (!ready) {
            process.stop(TIMEOUT);
          }
        }
        if (ready) {
          return server;
        }
        String output = process.output();
        if (!ToolProcess.lostPortRace(output) || attempt == ToolProcess.PORT_ATTEMPTS) {
          throw new IOException(
              "prometheus exited with code "
                  + process.exitValue()
                  + " (port "
                  + port
                  + "):\n"
                  + output);
        }
        // Another process took the port between freePort() and Prometheus's bind: take another.
      }
    } catch (IOException | RuntimeException | Error e) {
      ToolProcess.deleteRecursively(directory);
      throw e;
    }
  }

  /** The configuration for {@code targets} (see the class doc); checks the arguments. */
  static String config(List<String> targets, String metricsPath) {
    requireNonNull(targets, "targets");
    requireNonNull(metricsPath, "metricsPath");
    if (!METRICS_PATH.matcher(metricsPath).matches()) {
      throw new IllegalArgumentException("metricsPath: not a URL path: \"" + metricsPath + "\"");
    }
    StringBuilder config =
        new StringBuilder()
            .append("global:\n")
            .append("  scrape_interval: 1s\n")
            .append("  scrape_timeout: 1s\n")
            .append("  evaluation_interval: 1s\n")
            .append("scrape_configs:\n")
            .append("  - job_name: tern\n")
            .append("    metrics_path: \"")
            .append(metricsPath)
            .append("\"\n")
            .append("    static_configs:\n")
            .append("      - targets: [");
    for (int i = 0; i < targets.size(); i++) {
      String target = requireNonNull(targets.get(i), "targets: a target is null");
      if (!TARGET.matcher(target).matches()) {
        throw new IllegalArgumentException("targets: not host:port: \"" + target + "\"");
      }
      config.append(i == 0 ? "" : ", ").append('"').append(target).append('"');
    }
    return config.append("]\n").toString();
  }

  /** Asks {@code /-/ready} until it answers 200 (true) or the process exits (false). */
  private boolean awaitReady() throws IOException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url() + "/-/ready")).timeout(PROBE_TIMEOUT).build();
    while (true) {
      if (!process.isAlive()) {
        return false;
      }
      try {
        if (send(request).statusCode() == 200) {
          return true;
        }
      } catch (InterruptedIOException e) {
        throw e;
      } catch (IOException e) {
        // Not listening yet, or not answering yet while it starts: ask again.
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException(
            "prometheus was not ready within " + TIMEOUT + ":\n" + process.output());
      }
      process.awaitExit(POLL_INTERVAL);
    }
  }

  /** The port the server listens on, on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** The server's base URL, {@code http://127.0.0.1:<port>}. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** The server's process ID. */
  public long pid() {
    return process.pid();
  }

  /**
   * The temporary directory with the configuration ({@code prometheus.yml}) and the database
   * ({@code data}); deleted by {@link #close()}.
   */
  public Path directory() {
    return directory;
  }

  /** Everything the server has printed so far (its log). */
  public String output() {
    return process.output();
  }

  /**
   * Runs {@code promql} as an instant query ({@code /api/v1/query}) and returns the answer's JSON
   * text as is, such as {@code {"status":"success","data":{"resultType":"vector","result":[...]}}}.
   *
   * @throws IllegalArgumentException when Prometheus rejects the query (bad syntax, or a query that
   *     cannot run), with its error
   * @throws IOException when the server does not answer, or answers with another error
   */
  public String query(String promql) throws IOException {
    requireNonNull(promql, "promql");
    URI uri = URI.create(url() + "/api/v1/query?query=" + URLEncoder.encode(promql, UTF_8));
    HttpResponse<String> response =
        send(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).build());
    int status = response.statusCode();
    if (status == 400 || status == 422) {
      throw new IllegalArgumentException(
          "promql: Prometheus rejected \"" + promql + "\": " + errorOf(response.body()));
    }
    if (status != 200) {
      throw new IOException(
          "query \"" + promql + "\" answered HTTP " + status + ": " + response.body());
    }
    return response.body();
  }

  /**
   * Runs {@code promql} as an instant query and returns its series: one sample per series of an
   * instant vector (in Prometheus's order), or one sample without labels for a scalar. Values
   * {@code NaN}, {@code +Inf} and {@code -Inf} come as the same doubles.
   *
   * @throws IllegalArgumentException when Prometheus rejects the query, or its answer is a range
   *     vector or a string (use {@link #query} for those)
   */
  public List<Sample> querySamples(String promql) throws IOException {
    return samples(promql, query(promql));
  }

  /**
   * Runs {@code promql} until {@code condition} holds for its samples ({@link #querySamples}), and
   * returns them; asks again every 100 ms (the server scrapes every second).
   *
   * @throws AssertionError when the condition does not hold within {@code timeout}, or the server
   *     exits first; its message has the last answer
   */
  public List<Sample> awaitQuery(String promql, Predicate<List<Sample>> condition, Duration timeout)
      throws IOException {
    requireNonNull(promql, "promql");
    requireNonNull(condition, "condition");
    requireNonNull(timeout, "timeout");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String answer = query(promql);
      List<Sample> samples = samples(promql, answer);
      if (condition.test(samples)) {
        return samples;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "query \""
                + promql
                + "\" did not answer as expected within "
                + timeout
                + "; last: "
                + answer);
      }
      if (process.awaitExit(POLL_INTERVAL)) {
        throw new AssertionError(
            "prometheus exited while awaiting \"" + promql + "\":\n" + process.output());
      }
    }
  }

  /** Reads the samples of a query's answer (see {@link #querySamples}). */
  static List<Sample> samples(String promql, String answer) {
    Object data = member(JsonParser.parse(answer), "data");
    Object type = member(data, "resultType");
    Object result = member(data, "result");
    List<Sample> samples = new ArrayList<>();
    if ("scalar".equals(type)) {
      samples.add(new Sample(Map.of(), value(result)));
    } else if ("vector".equals(type) && result instanceof List<?> series) {
      for (Object one : series) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (member(one, "metric") instanceof Map<?, ?> metric) {
          metric.forEach((name, value) -> labels.put(String.valueOf(name), String.valueOf(value)));
        }
        samples.add(new Sample(labels, value(member(one, "value"))));
      }
    } else {
      throw new IllegalArgumentException(
          "promql: \""
              + promql
              + "\" gives a "
              + type
              + ", not an instant vector or a scalar; use query() for its JSON");
    }
    return samples;
  }

  /** The value of a {@code [timestamp, "value"]} pair. */
  private static double value(Object pair) {
    if (!(pair instanceof List<?> list) || list.size() != 2 || !(list.get(1) instanceof String)) {
      throw new IllegalArgumentException("not a [time, \"value\"] pair: " + pair);
    }
    String text = (String) list.get(1);
    switch (text) {
      case "+Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      case "NaN":
        return Double.NaN;
      default:
        return Double.parseDouble(text);
    }
  }

  private static Object member(Object object, String name) {
    if (!(object instanceof Map<?, ?> map) || !map.containsKey(name)) {
      throw new IllegalArgumentException("no \"" + name + "\" in the answer: " + object);
    }
    return map.get(name);
  }

  private static String errorOf(String body) {
    try {
      return String.valueOf(member(JsonParser.parse(body), "error"));
    } catch (IllegalArgumentException e) {
      return body;
    }
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted asking " + request.uri());
    }
  }

  /** Stops the server by its PID, waits for it, and deletes its directory. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      process.stop(TIMEOUT);
    } finally {
      ToolProcess.deleteRecursively(directory);
    }
  }
}
