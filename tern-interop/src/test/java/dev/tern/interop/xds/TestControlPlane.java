package dev.tern.interop.xds;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The test control plane ({@link ExternalTool#XDS_CONTROLPLANE}, tern-xds's
 * src/test/go/controlplane, built by tools/install-xds-tools.sh) on 127.0.0.1, serving one node one
 * service: API listener {@code svc} -> route configuration {@code r1} -> EDS cluster {@code c1}
 * (round robin) -> the endpoints of {@code e1}, all from ADS. Resources go over its HTTP endpoint
 * as protojson text.
 *
 * <p>Thread-safe.
 */
final class TestControlPlane implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
  private static final Pattern ADS_PORT = Pattern.compile("(?m)^ads-port=(\\d+)$");
  private static final Pattern HTTP_PORT = Pattern.compile("(?m)^http-port=(\\d+)$");
  private static final String ADS = "{\"ads\": {}, \"resource_api_version\": \"V3\"}";

  private final ToolProcess process;
  private final int adsPort;
  private final int httpPort;
  private final HttpClient http = HttpClient.newHttpClient();

  private TestControlPlane(ToolProcess process, int adsPort, int httpPort) {
    this.process = process;
    this.adsPort = adsPort;
    this.httpPort = httpPort;
  }

  /** Starts it on ports the OS picks; skips the test when it is not installed (fails under CI). */
  static TestControlPlane start() throws IOException {
    Path program = ExternalTool.require(ExternalTool.XDS_CONTROLPLANE);
    ToolProcess process =
        ToolProcess.start(
            ExternalTool.XDS_CONTROLPLANE, List.of(program.toString(), "-ads-port", "0"));
    try {
      if (process.awaitOutput(text -> HTTP_PORT.matcher(text).find(), START_TIMEOUT)) {
        Matcher ads = ADS_PORT.matcher(process.output());
        Matcher web = HTTP_PORT.matcher(process.output());
        if (ads.find() && web.find()) {
          return new TestControlPlane(
              process, Integer.parseInt(ads.group(1)), Integer.parseInt(web.group(1)));
        }
      }
    } catch (IOException | RuntimeException e) {
      process.stop(START_TIMEOUT);
      throw e;
    }
    process.stop(START_TIMEOUT);
    throw new IOException("the control plane printed no ports: " + process.output());
  }

  /** A bootstrap (gRFC A27) for node {@code node} pointing at this control plane. */
  String bootstrap(String node) {
    return "{\"xds_servers\": [{\"server_uri\": \"127.0.0.1:"
        + adsPort
        + "\", \"channel_creds\": [{\"type\": \"insecure\"}],"
        + " \"server_features\": [\"xds_v3\"]}], \"node\": {\"id\": \""
        + node
        + "\"}}";
  }

  /** Serves {@code node} service {@code svc} with {@code backends} ("host:port") as endpoints. */
  void serve(String node, List<String> backends) throws IOException, InterruptedException {
    serve(node, backends, List.of());
  }

  /**
   * The server Listener (A36) of an xDS-enabled server on {@code hostPort} ("host:port") named by
   * {@code template}: one filter chain for every connection, every call served.
   */
  static String serverListener(String template, String hostPort) {
    return serverListener(template, hostPort, null, "");
  }

  /**
   * The same Listener with {@code transportSocket} (JSON, e.g. {@link #downstreamTls}; null: none,
   * plaintext) on its filter chain and {@code httpFilters} (JSON, comma-separated; may be empty)
   * before the router.
   */
  static String serverListener(
      String template, String hostPort, String transportSocket, String httpFilters) {
    int colon = hostPort.lastIndexOf(':');
    String hcm =
        "{\"@type\": \"type.googleapis.com/envoy.extensions.filters.network"
            + ".http_connection_manager.v3.HttpConnectionManager\", \"route_config\": {\"name\":"
            + " \"inbound\", \"virtual_hosts\": [{\"name\": \"all\", \"domains\": [\"*\"],"
            + " \"routes\": [{\"match\": {\"prefix\": \"/\"}, \"non_forwarding_action\": {}}]}]},"
            + " \"http_filters\": ["
            + (httpFilters.isEmpty() ? "" : httpFilters + ", ")
            + "{\"name\": \"router\", \"typed_config\": {\"@type\":"
            + " \"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\"}}]}";
    return "{\"name\": \""
        + template.replace("%s", hostPort)
        + "\", \"address\": {\"socket_address\": {\"address\": \""
        + hostPort.substring(0, colon)
        + "\", \"port_value\": "
        + hostPort.substring(colon + 1)
        + "}}, \"filter_chains\": [{\"name\": \"all\", \"filters\": [{\"name\": \"hcm\","
        + " \"typed_config\": "
        + hcm
        + "}]"
        + (transportSocket == null ? "" : ", \"transport_socket\": " + transportSocket)
        + "}]}";
  }

  /**
   * A server's {@code transport_socket} (A29): a DownstreamTlsContext whose key and certificate and
   * client roots come from the bootstrap's certificate provider instance {@code instance}, and
   * which requires a client certificate.
   */
  static String downstreamTls(String instance) {
    return tlsSocket(
        "DownstreamTlsContext",
        "{\"common_tls_context\": "
            + commonTlsContext(instance, List.of())
            + ", \"require_client_certificate\": true}");
  }

  /**
   * A cluster's {@code transport_socket} (A29): an UpstreamTlsContext whose client key and
   * certificate and server roots come from the bootstrap's instance {@code instance}, accepting a
   * server certificate with one of {@code exactSans} (none: any the roots trust).
   */
  static String upstreamTls(String instance, List<String> exactSans) {
    return tlsSocket(
        "UpstreamTlsContext",
        "{\"common_tls_context\": " + commonTlsContext(instance, exactSans) + "}");
  }

  /**
   * An RBAC HTTP filter (A41) letting only callers whose certificate has {@code principal} (a SAN)
   * call; any other call fails PERMISSION_DENIED.
   */
  static String rbacAllowingOnly(String principal) {
    return "{\"name\": \"rbac\", \"typed_config\": {\"@type\":"
        + " \"type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC\", \"rules\":"
        + " {\"action\": \"ALLOW\", \"policies\": {\"only\": {\"permissions\": [{\"any\":"
        + " true}], \"principals\": [{\"authenticated\": {\"principal_name\": {\"exact\": \""
        + principal
        + "\"}}}]}}}}}";
  }

  private static String commonTlsContext(String instance, List<String> exactSans) {
    StringBuilder sans = new StringBuilder();
    for (String san : exactSans) {
      sans.append(sans.length() == 0 ? "" : ", ")
          .append("{\"exact\": \"")
          .append(san)
          .append("\"}");
    }
    return "{\"tls_certificate_provider_instance\": {\"instance_name\": \""
        + instance
        + "\"}, \"validation_context\": {\"ca_certificate_provider_instance\": {\"instance_name\":"
        + " \""
        + instance
        + "\"}"
        + (exactSans.isEmpty() ? "" : ", \"match_subject_alt_names\": [" + sans + "]")
        + "}}";
  }

  private static String tlsSocket(String type, String context) {
    return "{\"name\": \"envoy.transport_sockets.tls\", \"typed_config\": {\"@type\":"
        + " \"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3."
        + type
        + "\", "
        + context.substring(1)
        + "}";
  }

  /** {@link #serve(String, List)}, plus {@code serverListeners} (JSON) for xDS-enabled servers. */
  void serve(String node, List<String> backends, List<String> serverListeners)
      throws IOException, InterruptedException {
    serve(node, backends, serverListeners, null);
  }

  /**
   * {@link #serve(String, List, List)} with {@code clusterTransportSocket} (JSON, e.g. {@link
   * #upstreamTls}; null: none, plaintext) on the cluster.
   */
  void serve(
      String node,
      List<String> backends,
      List<String> serverListeners,
      String clusterTransportSocket)
      throws IOException, InterruptedException {
    String hcm =
        "{\"@type\": \"type.googleapis.com/envoy.extensions.filters.network"
            + ".http_connection_manager.v3.HttpConnectionManager\", \"rds\": {\"route_config_name\":"
            + " \"r1\", \"config_source\": "
            + ADS
            + "}, \"http_filters\": [{\"name\": \"router\", \"typed_config\": {\"@type\":"
            + " \"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\"}}]}";
    String listener = "{\"name\": \"svc\", \"api_listener\": {\"api_listener\": " + hcm + "}}";
    String routes =
        "{\"name\": \"r1\", \"virtual_hosts\": [{\"name\": \"vh\", \"domains\": [\"*\"],"
            + " \"routes\": [{\"match\": {\"prefix\": \"\"}, \"route\": {\"cluster\": \"c1\"}}]}]}";
    String cluster =
        "{\"name\": \"c1\", \"type\": \"EDS\", \"eds_cluster_config\": {\"eds_config\": "
            + ADS
            + ", \"service_name\": \"e1\"}, \"lb_policy\": \"ROUND_ROBIN\""
            + (clusterTransportSocket == null
                ? ""
                : ", \"transport_socket\": " + clusterTransportSocket)
            + "}";
    StringBuilder endpoints = new StringBuilder();
    for (String backend : backends) {
      int colon = backend.lastIndexOf(':');
      endpoints
          .append(endpoints.length() == 0 ? "" : ", ")
          .append("{\"endpoint\": {\"address\": {\"socket_address\": {\"address\": \"")
          .append(backend, 0, colon)
          .append("\", \"port_value\": ")
          .append(backend.substring(colon + 1))
          .append("}}}}");
    }
    String assignment =
        "{\"cluster_name\": \"e1\", \"endpoints\": [{\"locality\": {\"zone\": \"z1\"},"
            + " \"load_balancing_weight\": 1, \"lb_endpoints\": ["
            + endpoints
            + "]}]}";
    String body =
        "{\"node\": \""
            + node
            + "\", \"version\": \"1\", \"listeners\": ["
            + listener
            + (serverListeners.isEmpty() ? "" : ", " + String.join(", ", serverListeners))
            + "], \"routes\": ["
            + routes
            + "], \"clusters\": ["
            + cluster
            + "], \"endpoints\": ["
            + assignment
            + "]}";
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/snapshot"))
                .POST(HttpRequest.BodyPublishers.ofString(body, UTF_8))
                .build(),
            HttpResponse.BodyHandlers.ofString(UTF_8));
    if (response.statusCode() != 204) {
      throw new IllegalStateException(
          "setting the snapshot failed: " + response.statusCode() + " " + response.body());
    }
  }

  /** Everything it printed. */
  String output() {
    return process.output();
  }

  /** Stops the process by its PID and waits for it. Idempotent. */
  @Override
  public void close() {
    process.stop(Duration.ofSeconds(10));
  }
}
