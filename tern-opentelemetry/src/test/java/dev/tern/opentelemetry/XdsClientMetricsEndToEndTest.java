package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.OtelCollector;
import dev.tern.testtools.PrometheusServer;
import dev.tern.testtools.XdsControlPlane;
import dev.tern.xds.Bootstrap;
import io.opentelemetry.exporter.prometheus.PrometheusHttpServer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.SimpleFormatter;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * gRFC A78's xDS client metrics as an operator sees them: a Tern channel to {@code xds:///} target,
 * whose bootstrap lists a control plane that cannot be reached and then the real test control plane
 * (tern-xds's Go program on go-control-plane), calls a Tern server, and exports {@code
 * grpc.xds_client.*} to a real OpenTelemetry Collector (over OTLP) and to a real Prometheus that
 * scrapes the process; the call's attempt metrics carry A78's locality and A89's backend service
 * labels (enabled here) into both. Tagged external-check: it runs the control plane besides the
 * Collector and Prometheus.
 */
@Tag("external-check")
class XdsClientMetricsEndToEndTest {
  private static final String TARGET = "xds:///metrics-svc";
  private static final List<String> XDS_CLIENT_METRICS =
      List.of(
          "grpc.xds_client.connected",
          "grpc.xds_client.resources",
          "grpc.xds_client.resource_updates_valid",
          "grpc.xds_client.server_failure");
  private static final List<String> TYPES =
      List.of(
          "envoy.config.listener.v3.Listener",
          "envoy.config.route.v3.RouteConfiguration",
          "envoy.config.cluster.v3.Cluster",
          "envoy.config.endpoint.v3.ClusterLoadAssignment");

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final String node = "xds-metrics-" + System.nanoTime();
  private XdsControlPlane controlPlane;
  private String unreachable;
  private String bootstrapBefore;

  /** The xDS client's warnings about the control plane nobody answers, expected here. */
  private LogCapture xdsLogs;

  @BeforeEach
  void startControlPlane() throws Exception {
    xdsLogs = new LogCapture("dev.tern.xds", null);
    controlPlane = XdsControlPlane.start(List.of("-ads-port", "0"));
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      unreachable = "127.0.0.1:" + socket.getLocalPort(); // a port nothing listens on now
    }
    Server server = FleetMetricsEndToEndTest.echoServer(cleanup);
    controlPlane.post("/snapshot", snapshot(server.getPort()));
    bootstrapBefore =
        System.setProperty(
            Bootstrap.BOOTSTRAP_CONFIG_PROPERTY,
            "{\"xds_servers\": ["
                + serverJson(unreachable)
                + ", "
                + serverJson(controlPlane.target())
                + "], \"node\": {\"id\": \""
                + node
                + "\"}}");
  }

  @AfterEach
  void stopControlPlane() {
    if (bootstrapBefore == null) {
      System.clearProperty(Bootstrap.BOOTSTRAP_CONFIG_PROPERTY);
    } else {
      System.setProperty(Bootstrap.BOOTSTRAP_CONFIG_PROPERTY, bootstrapBefore);
    }
    if (controlPlane != null) { // null when the control plane is not installed (a skip)
      controlPlane.close();
    }
    xdsLogs.close();
  }

  /** The bootstrap's entry for the control plane at {@code target}, without TLS. */
  static String serverJson(String target) {
    return "{\"server_uri\": \"" + target + "\", \"channel_creds\": [{\"type\": \"insecure\"}]}";
  }

  /** The control plane's snapshot for the node: the listener, its routes, cluster and endpoint. */
  private String snapshot(int port) {
    String hcm = "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3";
    String router = "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router";
    return """
        {"node": "%s", "version": "1",
         "listeners": [{"name": "metrics-svc", "apiListener": {"apiListener": {
           "@type": "%s.HttpConnectionManager",
           "rds": {"configSource": {"ads": {}}, "routeConfigName": "r1"},
           "httpFilters": [{"name": "router", "typedConfig": {"@type": "%s"}}]}}}],
         "routes": [{"name": "r1", "virtualHosts": [{"name": "vh", "domains": ["*"],
           "routes": [{"match": {"prefix": ""}, "route": {"cluster": "c1"}}]}]}],
         "clusters": [{"name": "c1", "type": "EDS", "lbPolicy": "ROUND_ROBIN",
           "edsClusterConfig": {"edsConfig": {"ads": {}}, "serviceName": "e1"}}],
         "endpoints": [{"clusterName": "e1", "endpoints": [{"locality": {"region": "r"},
           "loadBalancingWeight": 1, "lbEndpoints": [{"endpoint": {"address": {"socketAddress":
             {"address": "127.0.0.1", "portValue": %d}}}}]}]}]}
        """
        .formatted(node, hcm, router, port);
  }

  /** An xDS channel made with {@code otel}, after one call through it. */
  private void callThroughXds(GrpcOpenTelemetry otel) {
    ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget(TARGET).usePlaintext();
    otel.configureChannelBuilder(builder);
    ManagedChannel channel = cleanup.register(builder.build());
    assertThat(
            ClientCalls.blockingUnaryCall(
                channel,
                OtelFixture.UNARY,
                CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
                "through xds"))
        .isEqualTo("through xds");
  }

  /** The xDS client metrics on, and A78's and A89's labels on the attempt metrics. */
  private static GrpcOpenTelemetry otel(OpenTelemetrySdk sdk) {
    return GrpcOpenTelemetry.newBuilder()
        .sdk(sdk)
        .enableMetrics(XDS_CLIENT_METRICS)
        .addOptionalLabel("grpc.lb.locality")
        .addOptionalLabel("grpc.lb.backend_service")
        .build();
  }

  @Test
  void theCollectorReceivesTheXdsClientMetricsWithTheirLabels() throws Exception {
    try (OtelCollector collector = OtelCollector.start()) {
      OpenTelemetrySdk sdk = FleetMetricsEndToEndTest.exportingTo(collector);
      try {
        callThroughXds(otel(sdk));
      } finally {
        sdk.close(); // exports what the reader holds
      }

      String output =
          collector.awaitOutput(
              out -> XDS_CLIENT_METRICS.stream().allMatch(m -> out.contains("Name: " + m + "\n")),
              Duration.ofSeconds(30));
      assertThat(output)
          .contains("grpc.target: Str(" + TARGET + ")")
          .contains("grpc.xds.server: Str(" + controlPlane.target() + ")")
          .contains("grpc.xds.server: Str(" + unreachable + ")")
          .contains("grpc.xds.authority: Str(#old)")
          .contains("grpc.xds.cache_state: Str(acked)")
          // The attempt metrics name the cluster and the endpoint's locality (A89, A78).
          .contains("Name: grpc.client.attempt.duration\n")
          .contains("grpc.lb.backend_service: Str(c1)")
          .contains("grpc.lb.locality: Str({region=\"r\", zone=\"\", sub_zone=\"\"})");
      for (String type : TYPES) {
        assertThat(output).contains("grpc.xds.resource_type: Str(" + type + ")");
      }
    }
  }

  @Test
  void prometheusScrapesConnectionResourcesUpdatesAndFailuresByServer() throws Exception {
    int[] port = new int[1];
    OpenTelemetrySdk sdk =
        FleetMetricsEndToEndTest.withFreePort(
            port,
            p ->
                FleetMetricsEndToEndTest.sdk(
                    PrometheusHttpServer.builder().setHost("127.0.0.1").setPort(p).build()));
    try {
      callThroughXds(otel(sdk));
      try (PrometheusServer prometheus = PrometheusServer.start(List.of("127.0.0.1:" + port[0]))) {
        List<PrometheusServer.Sample> connected =
            prometheus.awaitQuery(
                "grpc_xds_client_connected{grpc_xds_server=\"" + controlPlane.target() + "\"}",
                s -> !s.isEmpty(),
                Duration.ofSeconds(30));
        assertThat(connected)
            .singleElement()
            .satisfies(
                s -> {
                  assertThat(s.value()).isEqualTo(1.0);
                  assertThat(s.labels()).containsEntry("grpc_target", TARGET);
                });
        Map<String, Double> acked =
            byType(
                prometheus.querySamples(
                    "sum by (grpc_xds_resource_type)"
                        + " (grpc_xds_client_resources{grpc_xds_cache_state=\"acked\"})"));
        assertThat(acked).containsOnlyKeys(TYPES);
        assertThat(acked.values()).containsOnly(1.0); // one of each, cached and ACKed
        Map<String, Double> valid =
            byType(
                prometheus.querySamples(
                    "grpc_xds_client_resource_updates_valid_total{grpc_xds_server=\""
                        + controlPlane.target()
                        + "\"}"));
        assertThat(valid).containsOnlyKeys(TYPES);
        assertThat(valid.values()).allSatisfy(v -> assertThat(v).isGreaterThanOrEqualTo(1.0));
        assertThat(
                prometheus.querySamples(
                    "grpc_xds_client_server_failure_total{grpc_xds_server=\""
                        + unreachable
                        + "\"}"))
            .singleElement()
            .satisfies(s -> assertThat(s.value()).isGreaterThanOrEqualTo(1.0));
        assertThat(
                prometheus.querySamples(
                    "grpc_client_attempt_duration_seconds_count{grpc_lb_backend_service=\"c1\"}"))
            .singleElement()
            .satisfies(
                s -> {
                  assertThat(s.value()).isEqualTo(1.0);
                  assertThat(s.labels())
                      .containsEntry("grpc_lb_locality", "{region=\"r\", zone=\"\", sub_zone=\"\"}")
                      .containsEntry("grpc_status", "OK");
                });
        assertThat(xdsLogs.records())
            .map(r -> new SimpleFormatter().formatMessage(r))
            .anyMatch(m -> m.contains(unreachable + " cannot be reached"));
      }
    } finally {
      sdk.close();
    }
  }

  private static Map<String, Double> byType(List<PrometheusServer.Sample> samples) {
    return samples.stream()
        .collect(
            Collectors.toMap(
                s -> s.labels().get("grpc_xds_resource_type"), PrometheusServer.Sample::value));
  }
}
