package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.Status;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.testing.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The resources the tests push are ones a real mesh data plane takes too: one control plane
 * (go-control-plane, {@code tern-xds-controlplane}) serves the same route configuration, cluster
 * and endpoints to Tern's XdsClient (node {@code tern}, behind an API listener) and to a real Envoy
 * (node {@code envoy}, behind a socket listener on 127.0.0.1). Both ACK them, Envoy proxies calls
 * to the three Tern backends on 127.0.0.2-4 by them, and a malformed route configuration is NACKed
 * by both while the last good one keeps serving.
 */
class EnvoyConsumerTest {
  private static final String TERN_NODE = "tern";
  private static final String ENVOY_NODE = "envoy";
  private static final String ADS = "{\"ads\": {}, \"resource_api_version\": \"V3\"}";
  private static final String ROUTER =
      "{\"name\": \"router\", \"typed_config\": {\"@type\":"
          + " \"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\"}}";
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  /** An HttpConnectionManager taking route configuration {@code r1} from ADS. */
  private static String hcm(String extraFields) {
    return "{\"@type\":"
        + " \"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3"
        + ".HttpConnectionManager\","
        + extraFields
        + " \"rds\": {\"route_config_name\": \"r1\", \"config_source\": "
        + ADS
        + "}, \"http_filters\": ["
        + ROUTER
        + "]}";
  }

  /** What gRPC clients take: an API listener. */
  private static String apiListener() {
    return "{\"name\": \"svc\", \"api_listener\": {\"api_listener\": " + hcm("") + "}}";
  }

  /** What Envoy takes: a socket listener on 127.0.0.1, port 0 (the OS picks). */
  private static String socketListener() {
    return "{\"name\": \"ingress\", \"address\": {\"socket_address\": {\"address\": \"127.0.0.1\","
        + " \"port_value\": 0}}, \"filter_chains\": [{\"filters\": [{\"name\": \"hcm\","
        + " \"typed_config\": "
        + hcm(" \"stat_prefix\": \"ingress\", \"codec_type\": \"AUTO\",")
        + "}]}]}";
  }

  private static String routes(String match) {
    return "{\"name\": \"r1\", \"virtual_hosts\": [{\"name\": \"vh\", \"domains\": [\"*\"],"
        + " \"routes\": [{\"match\": "
        + match
        + ", \"route\": {\"cluster\": \"c1\"}}]}]}";
  }

  /** An EDS cluster, round robin, speaking HTTP/2 to its endpoints (Envoy needs to be told). */
  private static String cluster() {
    return "{\"name\": \"c1\", \"type\": \"EDS\", \"eds_cluster_config\": {\"eds_config\": "
        + ADS
        + ", \"service_name\": \"e1\"}, \"lb_policy\": \"ROUND_ROBIN\", \"connect_timeout\":"
        + " \"1s\", \"typed_extension_protocol_options\":"
        + " {\"envoy.extensions.upstreams.http.v3.HttpProtocolOptions\": {\"@type\":"
        + " \"type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions\","
        + " \"explicit_http_config\": {\"http2_protocol_options\": {}}}}}";
  }

  private static String endpoints(Backends backends) {
    List<String> lbEndpoints = new ArrayList<>();
    for (int i = 0; i < backends.size(); i++) {
      lbEndpoints.add(
          "{\"endpoint\": {\"address\": {\"socket_address\": {\"address\": \""
              + backends.host(i)
              + "\", \"port_value\": "
              + backends.port(i)
              + "}}}}");
    }
    return "{\"cluster_name\": \"e1\", \"endpoints\": [{\"locality\": {\"zone\": \"z1\"},"
        + " \"load_balancing_weight\": 1, \"lb_endpoints\": ["
        + String.join(", ", lbEndpoints)
        + "]}]}";
  }

  /** The same route configuration, cluster and endpoints for both nodes; each its own listener. */
  private static void push(
      ControlPlaneProcess cp, String version, String routeMatch, Backends backends) {
    for (String node : List.of(TERN_NODE, ENVOY_NODE)) {
      cp.setSnapshotJson(
          node,
          version,
          Map.of(
              "listeners", List.of(node.equals(TERN_NODE) ? apiListener() : socketListener()),
              "routes", List.of(routes(routeMatch)),
              "clusters", List.of(cluster()),
              "endpoints", List.of(endpoints(backends))));
    }
  }

  private XdsClient ternClient(ControlPlaneProcess cp) {
    String json = cp.bootstrapJson(TERN_NODE);
    return closeLater(
        XdsClient.create(
            Bootstrap.parse(json, "test bootstrap"),
            XdsClient.Options.defaults()
                .withBackoff(Duration.ofMillis(50), Duration.ofMillis(500))));
  }

  private static void awaitAcks(ControlPlaneProcess cp, String node, String version)
      throws InterruptedException {
    for (XdsResourceType<?> type : XdsClient.TYPES) {
      ControlPlaneProcess.Request ack =
          cp.awaitRequest(
              r ->
                  r.node().equals(node)
                      && r.typeUrl().equals(type.typeUrl())
                      && r.versionInfo().equals(version),
              node + "'s ACK of " + type + " version " + version);
      assertThat(ack.isNack()).as("%s's answer to %s", node, type).isFalse();
    }
  }

  private static int awaitListenerPort(EnvoyProcess envoy) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      int port = envoy.listenerPort("ingress");
      if (port > 0) {
        return port;
      }
      Thread.sleep(20); // a poll interval, not a synchronisation: the loop waits on the condition
    }
    throw new AssertionError("envoy bound no listener 'ingress'; its output: " + envoy.output());
  }

  private static Set<String> callThroughEnvoy(ManagedChannel channel, int calls) {
    Set<String> reached = new HashSet<>();
    for (int i = 0; i < calls; i++) {
      reached.add(Backends.call(channel));
    }
    return reached;
  }

  @Test
  void envoyAndTernTakeTheSameResources() throws Exception {
    Backends backends = closeLater(Backends.start("127.0.0.2", "127.0.0.3", "127.0.0.4"));
    ControlPlaneProcess cp = closeLater(ControlPlaneProcess.start());
    push(cp, "1", "{\"prefix\": \"\"}", backends);
    EnvoyProcess envoy = closeLater(EnvoyProcess.start(cp, ENVOY_NODE));
    XdsClient tern = ternClient(cp);

    // Tern: the whole chain, validated.
    RecordingWatcher<XdsListener> listener = new RecordingWatcher<>();
    tern.watch(XdsResourceType.LISTENER, "svc", listener);
    assertThat(listener.awaitChanged().rdsName()).isEqualTo("r1");
    RecordingWatcher<XdsRouteConfig> routes = new RecordingWatcher<>();
    tern.watch(XdsResourceType.ROUTE_CONFIGURATION, "r1", routes);
    assertThat(routes.awaitChanged().virtualHosts().get(0).routes().get(0).action().cluster())
        .isEqualTo("c1");
    RecordingWatcher<XdsCluster> cluster = new RecordingWatcher<>();
    tern.watch(XdsResourceType.CLUSTER, "c1", cluster);
    assertThat(cluster.awaitChanged().edsServiceName()).isEqualTo("e1");
    RecordingWatcher<XdsEndpoints> endpoints = new RecordingWatcher<>();
    tern.watch(XdsResourceType.ENDPOINTS, "e1", endpoints);
    assertThat(endpoints.awaitChanged().localities().get(0).endpoints()).hasSize(3);

    // Both consumers ACKed every type at version 1.
    awaitAcks(cp, TERN_NODE, "1");
    awaitAcks(cp, ENVOY_NODE, "1");

    // Envoy routes by them: calls through it reach every backend.
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", awaitListenerPort(envoy))
            .usePlaintext()
            .build();
    closeLater(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    assertThat(callThroughEnvoy(channel, 30))
        .containsExactlyInAnyOrder("127.0.0.2", "127.0.0.3", "127.0.0.4");

    // A malformed route configuration (a regex that does not compile): both NACK it ...
    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      push(cp, "2", "{\"safe_regex\": {\"regex\": \"a[\"}}", backends);
      awaitNacks(cp);
      SimpleFormatter formatter = new SimpleFormatter();
      assertThat(logs.records())
          .map(formatter::formatMessage)
          .anyMatch(m -> m.contains("NACK of RouteConfiguration version 2"));
    }
    Status error = routes.awaitError();
    assertThat(error.getDescription()).contains("safe_regex");

    // ... and the last good one keeps serving: Envoy still routes every call.
    assertThat(callThroughEnvoy(channel, 30))
        .containsExactlyInAnyOrder("127.0.0.2", "127.0.0.3", "127.0.0.4");
  }

  private static void awaitNacks(ControlPlaneProcess cp) throws InterruptedException {
    ControlPlaneProcess.Request envoyNack =
        cp.awaitRequest(
            r ->
                r.node().equals(ENVOY_NODE)
                    && r.typeUrl().equals(XdsResourceType.ROUTE_CONFIGURATION.typeUrl())
                    && r.isNack(),
            "Envoy's NACK of the malformed route configuration");
    assertThat(envoyNack.versionInfo()).isEqualTo("1");
    ControlPlaneProcess.Request ternNack =
        cp.awaitRequest(
            r ->
                r.node().equals(TERN_NODE)
                    && r.typeUrl().equals(XdsResourceType.ROUTE_CONFIGURATION.typeUrl())
                    && r.isNack(),
            "Tern's NACK of the malformed route configuration");
    assertThat(ternNack.versionInfo()).isEqualTo("1");
    assertThat(ternNack.errorDetail())
        .contains("RouteConfiguration \"r1\"")
        .contains("safe_regex")
        .contains("a[");
  }
}
