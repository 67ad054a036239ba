package dev.tern.xds;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.TypeRegistry;
import com.google.protobuf.util.JsonFormat;
import dev.tern.internal.config.JsonParser;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.XdsControlPlane;
import io.envoyproxy.envoy.extensions.clusters.aggregate.v3.ClusterConfig;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The xDS part of running the test control plane, {@link ExternalTool#XDS_CONTROLPLANE}
 * (src/test/go/controlplane, on Envoy's go-control-plane; built by tools/install-xds-tools.sh) on
 * 127.0.0.1: resources set as protos, the requests and streams it saw, its LRS server. Starting it
 * (a skip when it is missing, a failure under {@code CI=true}), its ports, its HTTP endpoint and
 * stopping it by its PID are tern-test-tools' {@link XdsControlPlane}.
 *
 * <p>Thread-safe.
 */
final class ControlPlaneProcess implements AutoCloseable {
  private static final Duration AWAIT_TIMEOUT = Duration.ofSeconds(20);
  private static final JsonFormat.Printer JSON =
      JsonFormat.printer()
          .omittingInsignificantWhitespace()
          .usingTypeRegistry(
              TypeRegistry.newBuilder()
                  .add(HttpConnectionManager.getDescriptor())
                  .add(Router.getDescriptor())
                  .add(ClusterConfig.getDescriptor())
                  .add(HTTPFault.getDescriptor())
                  .add(
                      io.envoyproxy.envoy.extensions.load_balancing_policies
                          .client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin
                          .getDescriptor())
                  .add(io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBAC.getDescriptor())
                  .add(
                      io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBACPerRoute
                          .getDescriptor())
                  .add(
                      io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
                          .getDescriptor())
                  .add(
                      io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
                          .getDescriptor())
                  .add(com.google.protobuf.BoolValue.getDescriptor())
                  .build());

  private final XdsControlPlane program;

  private ControlPlaneProcess(XdsControlPlane program) {
    this.program = program;
  }

  /** Starts the control plane on ports the OS picks. */
  static ControlPlaneProcess start() throws IOException {
    return start(0);
  }

  /** Starts it with its ADS server on {@code adsPort} (a restart on the port of an earlier one). */
  static ControlPlaneProcess start(int adsPort) throws IOException {
    return new ControlPlaneProcess(
        XdsControlPlane.start(List.of("-ads-port", Integer.toString(adsPort))));
  }

  /**
   * Starts it with its ADS server speaking TLS with {@code cert} and {@code key} (PEM files), and
   * requiring a client certificate that {@code clientRoots} (PEM) trusts if that is not null.
   */
  static ControlPlaneProcess startTls(Path cert, Path key, Path clientRoots) throws IOException {
    List<String> flags =
        new ArrayList<>(List.of("-tls-cert", cert.toString(), "-tls-key", key.toString()));
    if (clientRoots != null) {
      flags.addAll(List.of("-tls-client-ca", clientRoots.toString()));
    }
    return new ControlPlaneProcess(XdsControlPlane.start(flags));
  }

  int adsPort() {
    return program.adsPort();
  }

  long pid() {
    return program.pid();
  }

  /** The {@code server_uri} of a bootstrap pointing at it. */
  String target() {
    return program.target();
  }

  /** A bootstrap's JSON naming this control plane (insecure) and {@code node} as the node id. */
  String bootstrapJson(String node) {
    return "{\"xds_servers\": [" + serverJson() + "], \"node\": {\"id\": " + quote(node) + "}}";
  }

  /** This control plane as an {@code xds_servers} entry (insecure). */
  String serverJson() {
    return serverJson(target());
  }

  /** An {@code xds_servers} entry for {@code target} (insecure). */
  static String serverJson(String target) {
    return "{\"server_uri\": " + quote(target) + ", \"channel_creds\": [{\"type\": \"insecure\"}]}";
  }

  /** Replaces the node's snapshot (pushed at once to its open streams). */
  void setSnapshot(String node, String version, List<? extends Message> resources) {
    Map<String, List<String>> byKind = new java.util.LinkedHashMap<>();
    for (Message m : resources) {
      String kind =
          switch (m.getDescriptorForType().getName()) {
            case "Listener" -> "listeners";
            case "RouteConfiguration" -> "routes";
            case "Cluster" -> "clusters";
            case "ClusterLoadAssignment" -> "endpoints";
            default -> throw new IllegalArgumentException(m.getDescriptorForType().getName());
          };
      try {
        byKind.computeIfAbsent(kind, k -> new ArrayList<>()).add(JSON.print(m));
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalArgumentException(e);
      }
    }
    setSnapshotJson(node, version, byKind);
  }

  /**
   * Replaces the node's snapshot with resources given as protojson text, by kind ({@code
   * listeners}, {@code routes}, {@code clusters}, {@code endpoints}): for resources holding types
   * Tern does not generate (an Envoy listener's socket address is fine, but a cluster's HTTP/2
   * protocol options are not), which the control plane parses itself.
   */
  void setSnapshotJson(String node, String version, Map<String, List<String>> byKind) {
    StringBuilder body = new StringBuilder();
    body.append("{\"node\":").append(quote(node)).append(",\"version\":").append(quote(version));
    byKind.forEach(
        (kind, list) ->
            body.append(",\"")
                .append(kind)
                .append("\":[")
                .append(String.join(",", list))
                .append(']'));
    body.append('}');
    program.post("/snapshot", body.toString());
  }

  /** A DiscoveryRequest the control plane received, as its HTTP endpoint reports it. */
  record Request(
      long stream,
      String node,
      String typeUrl,
      String versionInfo,
      String responseNonce,
      List<String> resourceNames,
      String errorDetail) {
    boolean isNack() {
      return !errorDetail.isEmpty();
    }
  }

  /** Every request received so far, in order. */
  @SuppressWarnings("unchecked")
  List<Request> requests() {
    List<Request> out = new ArrayList<>();
    for (Object o : (List<Object>) JsonParser.parse(program.get("/requests"))) {
      Map<String, Object> m = (Map<String, Object>) o;
      List<String> names = new ArrayList<>();
      ((List<Object>) m.get("resource_names")).forEach(n -> names.add((String) n));
      out.add(
          new Request(
              ((Double) m.get("stream")).longValue(),
              (String) m.get("node"),
              (String) m.get("type_url"),
              (String) m.get("version_info"),
              (String) m.get("response_nonce"),
              names,
              (String) m.get("error_detail")));
    }
    return out;
  }

  /**
   * Polls the record of requests until one matches, for 20 seconds; an AssertionError listing what
   * came instead otherwise.
   */
  Request awaitRequest(Predicate<Request> matches, String what) throws InterruptedException {
    long deadline = System.nanoTime() + AWAIT_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (Request r : requests()) {
        if (matches.test(r)) {
          return r;
        }
      }
      Thread.sleep(20); // a poll interval, not a synchronisation: the loop waits on the condition
    }
    throw new AssertionError("the control plane received no " + what + ": " + requests());
  }

  /** Streams opened since start, and open now. */
  @SuppressWarnings("unchecked")
  Map<String, Object> streams() {
    return (Map<String, Object>) JsonParser.parse(program.get("/streams"));
  }

  /**
   * How its LRS server answers the next streams ({@code POST /lrs}): e.g. {@code {"interval":
   * "0.2s", "send_all_clusters": true, "fail_streams": 2}}.
   */
  void setLoadReporting(String json) {
    program.post("/lrs", json);
  }

  /**
   * What its LRS server received ({@code GET /loadreports}): {@code {"streams": S, "failed": F,
   * "reports": [{"stream", "node", "cluster_stats": [ClusterStats as proto3 JSON]}]}}.
   */
  @SuppressWarnings("unchecked")
  Map<String, Object> loadReports() {
    return (Map<String, Object>) JsonParser.parse(program.get("/loadreports"));
  }

  /**
   * The subject common name of the client certificate each ADS stream came with, in the order the
   * streams opened ("" for none).
   */
  @SuppressWarnings("unchecked")
  List<String> clientCertificates() {
    return (List<String>) streams().get("client_certificates");
  }

  /** Everything the process printed. */
  String output() {
    return program.output();
  }

  /** Stops the process by its PID (SIGTERM, then SIGKILL) and waits for it. Idempotent. */
  @Override
  public void close() {
    program.close();
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
