package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import dev.tern.internal.config.JsonParser;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A real Toxiproxy server ({@value ExternalTool#TOXIPROXY}, github.com/Shopify/toxiproxy, built by
 * {@code tools/install-chaos-tools.sh}) on a free port of 127.0.0.1, and its HTTP API: TCP proxies
 * ({@link #createProxy}) that forward to an upstream, toxics that degrade one direction of a proxy
 * ({@link #addToxic}, {@link #removeToxic}), and a proxy switched off and on ({@link #setEnabled}:
 * off closes its connections and refuses new ones). {@link #close()} stops the server by its PID.
 *
 * <p>Thread-safe: the API is plain HTTP requests on a thread-safe {@link HttpClient}.
 */
public final class Toxiproxy implements AutoCloseable {
  /** How long the server may take to start, a request to answer, the server to stop. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final Pattern HOST_PORT = Pattern.compile("[0-9.]+:[0-9]{1,5}");

  private final ToolProcess process;
  private final int port;
  private final HttpClient http;

  private Toxiproxy(ToolProcess process, int port, HttpClient http) {
    this.process = process;
    this.port = port;
    this.http = http;
  }

  /**
   * Starts {@code toxiproxy-server}; when it is not installed, skips the calling test (fails it
   * under {@code CI=true}), as {@link ExternalTool#require} does.
   */
  public static Toxiproxy start() throws IOException {
    return start(ExternalTool.require(ExternalTool.TOXIPROXY));
  }

  /** Starts the {@code toxiproxy-server} at {@code binary}; returns once its API answers. */
  public static Toxiproxy start(Path binary) throws IOException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    for (int attempt = 1; ; attempt++) {
      int port = ToolProcess.freePort();
      ToolProcess process =
          ToolProcess.start(
              "toxiproxy",
              List.of(binary.toString(), "-host", "127.0.0.1", "-port", Integer.toString(port)));
      Toxiproxy toxiproxy = new Toxiproxy(process, port, http);
      boolean ready = false;
      try {
        ready = toxiproxy.awaitReady();
      } finally {
        if (!ready) {
          process.stop(TIMEOUT);
        }
      }
      if (ready) {
        return toxiproxy;
      }
      String output = process.output();
      if (!ToolProcess.lostPortRace(output) || attempt == ToolProcess.PORT_ATTEMPTS) {
        throw new IOException("toxiproxy-server exited (port " + port + "):\n" + output);
      }
    }
  }

  /** The port of the HTTP API, on 127.0.0.1. */
  public int apiPort() {
    return port;
  }

  /** The server's PID. */
  public long pid() {
    return process.pid();
  }

  /**
   * Creates proxy {@code name} listening on a free port of 127.0.0.1 and forwarding to {@code
   * upstream} ({@code ip:port}); returns the port it listens on.
   *
   * @throws IllegalArgumentException when {@code name} or {@code upstream} is malformed
   */
  public int createProxy(String name, String upstream) throws IOException {
    checkName("name", name);
    if (!HOST_PORT.matcher(requireNonNull(upstream, "upstream")).matches()) {
      throw new IllegalArgumentException("upstream: not ip:port: \"" + upstream + "\"");
    }
    String answer =
        send(
            "POST",
            "/proxies",
            "{\"name\":\"%s\",\"listen\":\"127.0.0.1:0\",\"upstream\":\"%s\",\"enabled\":true}"
                .formatted(name, upstream),
            201);
    Object listen = JsonParser.parseObject(answer).get("listen");
    if (!(listen instanceof String address) || address.lastIndexOf(':') < 0) {
      throw new IOException("toxiproxy's answer has no listen address: " + answer);
    }
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }

  /**
   * Adds toxic {@code toxic} of {@code type} (latency, bandwidth, slow_close, timeout, reset_peer,
   * slicer, limit_data) to proxy {@code proxy}, on the {@code downstream} (server to client) or
   * upstream direction, with {@code attributes} (numbers, as Toxiproxy's documentation names them).
   */
  public void addToxic(
      String proxy, String toxic, String type, boolean downstream, Map<String, Long> attributes)
      throws IOException {
    checkName("proxy", proxy);
    checkName("toxic", toxic);
    checkName("type", type);
    StringBuilder attrs = new StringBuilder();
    for (Map.Entry<String, Long> attribute : attributes.entrySet()) {
      checkName("attributes", attribute.getKey());
      attrs.append(attrs.length() == 0 ? "" : ",");
      attrs.append('"').append(attribute.getKey()).append("\":").append(attribute.getValue());
    }
    send(
        "POST",
        "/proxies/" + proxy + "/toxics",
        "{\"name\":\"%s\",\"type\":\"%s\",\"stream\":\"%s\",\"toxicity\":1.0,\"attributes\":{%s}}"
            .formatted(toxic, type, downstream ? "downstream" : "upstream", attrs),
        200);
  }

  /** Removes toxic {@code toxic} from proxy {@code proxy}. */
  public void removeToxic(String proxy, String toxic) throws IOException {
    checkName("proxy", proxy);
    checkName("toxic", toxic);
    send("DELETE", "/proxies/" + proxy + "/toxics/" + toxic, null, 204);
  }

  /**
   * Switches proxy {@code proxy} off (its connections are closed and new ones refused) or on again.
   */
  public void setEnabled(String proxy, boolean enabled) throws IOException {
    checkName("proxy", proxy);
    send("POST", "/proxies/" + proxy, "{\"enabled\":" + enabled + "}", 200);
  }

  /** Stops the server by its PID; idempotent. */
  @Override
  public void close() {
    process.stop(TIMEOUT);
  }

  private static void checkName(String what, String value) {
    if (!NAME.matcher(requireNonNull(value, what)).matches()) {
      throw new IllegalArgumentException(
          what + ": not a name of [A-Za-z0-9_.-]: \"" + value + "\"");
    }
  }

  private String send(String method, String path, String body, int expected) throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(TIMEOUT);
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body, UTF_8));
    HttpResponse<String> response = exchange(request.build());
    if (response.statusCode() != expected) {
      throw new IOException(
          "toxiproxy: "
              + method
              + " "
              + path
              + " answered "
              + response.statusCode()
              + ": "
              + response.body());
    }
    return response.body();
  }

  private HttpResponse<String> exchange(HttpRequest request) throws IOException {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted asking toxiproxy " + request.uri());
    }
  }

  /** Asks {@code /version} until it answers 200 (true) or the process exits (false). */
  private boolean awaitReady() throws IOException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/version"))
            .timeout(TIMEOUT)
            .build();
    while (true) {
      if (!process.isAlive()) {
        return false;
      }
      try {
        if (exchange(request).statusCode() == 200) {
          return true;
        }
      } catch (InterruptedIOException e) {
        throw e;
      } catch (IOException e) {
        // Not listening yet: ask again.
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException(
            "toxiproxy-server did not answer within " + TIMEOUT + ":\n" + process.output());
      }
      process.awaitExit(POLL_INTERVAL);
    }
  }

  /** The executable, if installed (for programs that report instead of skipping). */
  public static Optional<Path> find() {
    return ExternalTool.find(ExternalTool.TOXIPROXY);
  }
}
