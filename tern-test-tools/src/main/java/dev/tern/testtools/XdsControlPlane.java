package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * tern-xds's test control plane, {@value ExternalTool#XDS_CONTROLPLANE} (tern-xds/src/test/go/
 * controlplane, on Envoy's go-control-plane; built by {@code tools/install-xds-tools.sh}), running
 * on 127.0.0.1: the ADS and HTTP ports it prints, and plain requests to its HTTP control endpoint
 * ({@link #post}, {@link #get}; the endpoint's paths are in the program's package doc). tern-xds's
 * tests put xDS resources on top of it; other modules' tests post the resources as protojson.
 * {@link #close()} stops it by its PID.
 *
 * <p>Thread-safe.
 */
public final class XdsControlPlane implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final Pattern ADS_PORT = Pattern.compile("(?m)^ads-port=(\\d+)$");
  private static final Pattern HTTP_PORT = Pattern.compile("(?m)^http-port=(\\d+)$");

  private final ToolProcess process;
  private final int adsPort;
  private final int httpPort;
  private final HttpClient http = HttpClient.newHttpClient();

  private XdsControlPlane(ToolProcess process, int adsPort, int httpPort) {
    this.process = process;
    this.adsPort = adsPort;
    this.httpPort = httpPort;
  }

  /**
   * Starts the program with {@code flags} (for example {@code -ads-port}, {@code -tls-cert}); when
   * it is not installed, skips the calling test (fails it under {@code CI=true}), as {@link
   * ExternalTool#require} does.
   */
  public static XdsControlPlane start(List<String> flags) throws IOException {
    Path program = ExternalTool.require(ExternalTool.XDS_CONTROLPLANE);
    List<String> command = new ArrayList<>(List.of(program.toString()));
    command.addAll(flags);
    ToolProcess process = ToolProcess.start(ExternalTool.XDS_CONTROLPLANE, command);
    try {
      if (process.awaitOutput(text -> HTTP_PORT.matcher(text).find(), START_TIMEOUT)) {
        String output = process.output();
        Matcher ads = ADS_PORT.matcher(output);
        Matcher web = HTTP_PORT.matcher(output);
        if (ads.find() && web.find()) {
          return new XdsControlPlane(
              process, Integer.parseInt(ads.group(1)), Integer.parseInt(web.group(1)));
        }
      }
    } catch (RuntimeException | IOException e) {
      process.stop(STOP_TIMEOUT);
      throw e;
    }
    process.stop(STOP_TIMEOUT);
    throw new IOException(
        ExternalTool.XDS_CONTROLPLANE
            + " did not print its ADS and HTTP ports; its output: "
            + process.output());
  }

  /** The ADS (and LRS) server's port. */
  public int adsPort() {
    return adsPort;
  }

  /** The process id. */
  public long pid() {
    return process.pid();
  }

  /** The {@code server_uri} of a bootstrap pointing at it. */
  public String target() {
    return "127.0.0.1:" + adsPort;
  }

  /**
   * Posts {@code json} to {@code path} of the HTTP endpoint.
   *
   * @throws IllegalStateException naming the path and the answer unless it is 204 No Content
   */
  public void post(String path, String json) {
    HttpResponse<String> response =
        send(
            HttpRequest.newBuilder(uri(path))
                .POST(HttpRequest.BodyPublishers.ofString(json, UTF_8))
                .build());
    if (response.statusCode() != 204) {
      throw new IllegalStateException(
          "POST " + path + " failed: " + response.statusCode() + " " + response.body());
    }
  }

  /** The body of {@code GET path} of the HTTP endpoint. */
  public String get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET().build()).body();
  }

  /** Everything the process printed. */
  public String output() {
    return process.output();
  }

  /** Stops the process by its PID (SIGTERM, then SIGKILL) and waits for it. Idempotent. */
  @Override
  public void close() {
    process.stop(STOP_TIMEOUT);
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + httpPort + path);
  }

  private HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
