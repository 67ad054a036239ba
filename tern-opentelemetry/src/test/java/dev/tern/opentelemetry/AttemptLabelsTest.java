package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.XdsControlPlane;
import dev.tern.xds.Bootstrap;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * gRFC A78's {@code grpc.lb.locality} and A89's {@code grpc.lb.backend_service} on the per-attempt
 * client metrics, through real calls: a channel to an {@code xds:///} target served by the real
 * test control plane (tern-xds's Go program on go-control-plane) records, on {@code
 * grpc.client.attempt.duration} and the two attempt size histograms, the picked endpoint's locality
 * and the cluster's name (also the cluster of a call its cluster drops), only when the user enabled
 * the labels; a channel without xDS records "" for an enabled label.
 */
class AttemptLabelsTest {
  private static final String TARGET = "xds:///labels-svc";
  private static final String LOCALITY = "{region=\"r\", zone=\"z\", sub_zone=\"s\"}";
  private static final AttributeKey<String> LOCALITY_KEY =
      AttributeKey.stringKey("grpc.lb.locality");
  private static final AttributeKey<String> BACKEND_SERVICE_KEY =
      AttributeKey.stringKey("grpc.lb.backend_service");
  private static final List<String> ATTEMPT_METRICS =
      List.of(
          "grpc.client.attempt.duration",
          "grpc.client.attempt.sent_total_compressed_message_size",
          "grpc.client.attempt.rcvd_total_compressed_message_size");
  private static final UnaryOperator<GrpcOpenTelemetry.Builder> BOTH_LABELS =
      b -> b.addOptionalLabel("grpc.lb.locality").addOptionalLabel("grpc.lb.backend_service");

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final String node;
  private XdsControlPlane controlPlane;
  private String bootstrapBefore;
  private final List<OpenTelemetrySdk> sdks = new ArrayList<>();

  AttemptLabelsTest(TestInfo info) {
    node = "labels-" + info.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
  }

  @AfterEach
  void stopControlPlane() {
    for (OpenTelemetrySdk sdk : sdks) {
      sdk.close();
    }
    if (controlPlane == null) {
      return; // not started (a test without xDS, or the control plane is not installed)
    }
    if (bootstrapBefore == null) {
      System.clearProperty(Bootstrap.BOOTSTRAP_CONFIG_PROPERTY);
    } else {
      System.setProperty(Bootstrap.BOOTSTRAP_CONFIG_PROPERTY, bootstrapBefore);
    }
    controlPlane.close();
  }

  /**
   * Starts the control plane with a listener whose routes send {@link OtelFixture#HAND_MADE} to
   * cluster {@code dropped} (its endpoints' policy drops every call) and the rest to cluster {@code
   * c1}, one endpoint (an echo server) in locality r/z/s, and names it in the bootstrap.
   */
  private void startXds() throws Exception {
    controlPlane = XdsControlPlane.start(List.of("-ads-port", "0"));
    Server server = FleetMetricsEndToEndTest.echoServer(cleanup);
    controlPlane.post("/snapshot", snapshot(server.getPort()));
    bootstrapBefore =
        System.setProperty(
            Bootstrap.BOOTSTRAP_CONFIG_PROPERTY,
            "{\"xds_servers\": ["
                + XdsClientMetricsEndToEndTest.serverJson(controlPlane.target())
                + "], \"node\": {\"id\": \""
                + node
                + "\"}}");
  }

  /** A channel to {@link #TARGET} made with {@code otel}. */
  private ManagedChannel xdsChannel(GrpcOpenTelemetry otel) {
    ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget(TARGET).usePlaintext();
    otel.configureChannelBuilder(builder);
    return cleanup.register(builder.build());
  }

  private String snapshot(int port) {
    String hcm = "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3";
    String router = "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router";
    return """
        {"node": "%s", "version": "1",
         "listeners": [{"name": "labels-svc", "apiListener": {"apiListener": {
           "@type": "%s.HttpConnectionManager",
           "rds": {"configSource": {"ads": {}}, "routeConfigName": "r1"},
           "httpFilters": [{"name": "router", "typedConfig": {"@type": "%s"}}]}}}],
         "routes": [{"name": "r1", "virtualHosts": [{"name": "vh", "domains": ["*"], "routes": [
           {"match": {"prefix": "/%s"}, "route": {"cluster": "dropped"}},
           {"match": {"prefix": ""}, "route": {"cluster": "c1"}}]}]}],
         "clusters": [
           {"name": "c1", "type": "EDS", "lbPolicy": "ROUND_ROBIN",
            "edsClusterConfig": {"edsConfig": {"ads": {}}, "serviceName": "e1"}},
           {"name": "dropped", "type": "EDS", "lbPolicy": "ROUND_ROBIN",
            "edsClusterConfig": {"edsConfig": {"ads": {}}, "serviceName": "e2"}}],
         "endpoints": [
           {"clusterName": "e1", "endpoints": [{"locality": {"region": "r", "zone": "z",
             "subZone": "s"}, "loadBalancingWeight": 1, "lbEndpoints": [{"endpoint": {"address":
               {"socketAddress": {"address": "127.0.0.1", "portValue": %d}}}}]}]},
           {"clusterName": "e2", "endpoints": [{"locality": {"region": "r2"},
             "loadBalancingWeight": 1, "lbEndpoints": [{"endpoint": {"address":
               {"socketAddress": {"address": "127.0.0.1", "portValue": %d}}}}]}],
            "policy": {"dropOverloads": [{"category": "all",
              "dropPercentage": {"numerator": 100, "denominator": "HUNDRED"}}]}}]}
        """
        .formatted(node, hcm, router, OtelFixture.HAND_MADE.getFullMethodName(), port, port);
  }

  private static String call(ManagedChannel channel, dev.tern.MethodDescriptor<String, String> m) {
    return ClientCalls.blockingUnaryCall(
        channel, m, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "hi");
  }

  @Test
  void enabledLabelsNameTheLocalityAndClusterOfEachAttemptEvenADroppedOne() throws Exception {
    startXds();
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    ManagedChannel channel = xdsChannel(otel(reader, BOTH_LABELS));
    assertThat(call(channel, OtelFixture.UNARY)).isEqualTo("hi");
    assertThatThrownBy(() -> call(channel, OtelFixture.HAND_MADE))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).contains("dropped");
            });

    Map<String, MetricData> metrics = OtelFixture.collect(reader);
    for (String name : ATTEMPT_METRICS) {
      assertThat(attributes(metrics.get(name)))
          .as(name)
          .containsExactlyInAnyOrder(
              attempt(OtelFixture.UNARY.getFullMethodName(), "OK")
                  .put(LOCALITY_KEY, LOCALITY)
                  .put(BACKEND_SERVICE_KEY, "c1")
                  .build(),
              // The drop happened before any endpoint was picked: no locality, but the cluster.
              attempt(GrpcOpenTelemetry.OTHER, "UNAVAILABLE")
                  .put(LOCALITY_KEY, "")
                  .put(BACKEND_SERVICE_KEY, "dropped")
                  .build());
    }
    // A78 and A89 put the labels on these three only: not on attempts started, nor on calls.
    assertThat(attributes(metrics.get("grpc.client.attempt.started")))
        .allSatisfy(a -> assertThat(a.get(BACKEND_SERVICE_KEY)).isNull());
    assertThat(attributes(metrics.get("grpc.client.call.duration")))
        .allSatisfy(a -> assertThat(a.get(BACKEND_SERVICE_KEY)).isNull());
  }

  @Test
  void overXdsAttemptsCarryOnlyTheLabelsEnabled() throws Exception {
    startXds();
    InMemoryMetricReader oneLabel = InMemoryMetricReader.create();
    ManagedChannel channel =
        xdsChannel(otel(oneLabel, b -> b.addOptionalLabel("grpc.lb.backend_service")));
    assertThat(call(channel, OtelFixture.UNARY)).isEqualTo("hi");
    InMemoryMetricReader noLabel = InMemoryMetricReader.create();
    assertThat(call(xdsChannel(otel(noLabel, b -> b)), OtelFixture.UNARY)).isEqualTo("hi");

    Map<String, MetricData> labeled = OtelFixture.collect(oneLabel);
    Map<String, MetricData> unlabeled = OtelFixture.collect(noLabel);
    for (String name : ATTEMPT_METRICS) {
      assertThat(attributes(labeled.get(name)))
          .as(name)
          .containsExactly(
              attempt(OtelFixture.UNARY.getFullMethodName(), "OK")
                  .put(BACKEND_SERVICE_KEY, "c1")
                  .build());
      assertThat(attributes(unlabeled.get(name)))
          .as(name)
          .containsExactly(attempt(OtelFixture.UNARY.getFullMethodName(), "OK").build());
    }
  }

  @Test
  void aChannelWithoutXdsRecordsEmptyValuesForEnabledLabels() throws Exception {
    try (OtelFixture fixture =
        new OtelFixture(
            cleanup,
            io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator.getInstance(),
            BOTH_LABELS)) {
      ClientCalls.blockingUnaryCall(fixture.channel, OtelFixture.UNARY, CallOptions.DEFAULT, "hi");
      Map<String, MetricData> metrics = fixture.collect();
      for (String name : ATTEMPT_METRICS) {
        assertThat(attributes(metrics.get(name)))
            .as(name)
            .containsExactly(
                Attributes.builder()
                    .put(Instruments.METHOD, OtelFixture.UNARY.getFullMethodName())
                    .put(Instruments.TARGET, fixture.target())
                    .put(Instruments.STATUS, "OK")
                    .put(LOCALITY_KEY, "")
                    .put(BACKEND_SERVICE_KEY, "")
                    .build());
      }
    }
  }

  private GrpcOpenTelemetry otel(
      InMemoryMetricReader reader, UnaryOperator<GrpcOpenTelemetry.Builder> options) {
    OpenTelemetrySdk sdk = FleetMetricsEndToEndTest.sdk(reader);
    sdks.add(sdk);
    return options.apply(GrpcOpenTelemetry.newBuilder().sdk(sdk).enableTracing(false)).build();
  }

  private static io.opentelemetry.api.common.AttributesBuilder attempt(
      String method, String status) {
    return Attributes.builder()
        .put(Instruments.METHOD, method)
        .put(Instruments.TARGET, TARGET)
        .put(Instruments.STATUS, status);
  }

  private static List<Attributes> attributes(MetricData metric) {
    assertThat(metric).isNotNull();
    return metric.getData().getPoints().stream().map(PointData::getAttributes).toList();
  }
}
