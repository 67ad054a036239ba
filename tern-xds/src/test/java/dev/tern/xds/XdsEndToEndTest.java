package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import com.google.protobuf.UInt32Value;
import dev.tern.CallOptions;
import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.WeightedCluster;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The whole client side, nothing replaced, as a user runs it: {@code
 * ManagedChannelBuilder.forTarget("xds:///svc")} with the bootstrap in the {@code
 * io.grpc.xds.bootstrapConfig} system property (the fallback of {@code GRPC_XDS_BOOTSTRAP_CONFIG}),
 * the default registries, a real control plane (go-control-plane) and three Tern backends on
 * 127.0.0.2-4. The resolver, the routing selector, the cluster manager, cds, cluster_resolver,
 * priority, weighted_target, cluster_impl and round_robin are all the real ones.
 */
class XdsEndToEndTest {
  private static final Metadata.Key<String> X_ROUTE =
      Metadata.Key.of("x-route", Metadata.ASCII_STRING_MARSHALLER);

  private final XdsMesh mesh = new XdsMesh();
  private final String node;
  private ControlPlaneProcess cp;
  private Backends backends;
  private int version;

  XdsEndToEndTest(TestInfo info) {
    node = "e2e-" + info.getTestMethod().orElseThrow().getName();
  }

  @BeforeEach
  void setUp() throws Exception {
    mesh.start(node, "127.0.0.2", "127.0.0.3", "127.0.0.4");
    cp = mesh.controlPlane();
    backends = mesh.backends();
  }

  @AfterEach
  void closeAll() throws Exception {
    mesh.close();
  }

  private ManagedChannel channel() {
    return mesh.channel();
  }

  /** Endpoints of {@code cluster}: the backends with the given indexes, one locality. */
  private ClusterLoadAssignment endpoints(String cluster, int... indexes) {
    LocalityLbEndpoints.Builder locality = Resources.locality("z1", 1, 0);
    for (int i : indexes) {
      locality.addLbEndpoints(Resources.endpoint(backends.host(i), backends.port(i)));
    }
    return ClusterLoadAssignment.newBuilder()
        .setClusterName(cluster)
        .addEndpoints(locality)
        .build();
  }

  /** Pushes the next version: Listener svc -> r1 with {@code routes}, plus {@code more}. */
  private void push(List<Route> routes, Message... more) throws InterruptedException {
    version++;
    List<Message> resources = new ArrayList<>();
    resources.add(Resources.listener("svc", "r1"));
    resources.add(Resources.routes("r1", routes.toArray(new Route[0])));
    resources.addAll(List.of(more));
    cp.setSnapshot(node, Integer.toString(version), resources);
  }

  private void awaitAcked(String typeUrl) throws InterruptedException {
    String v = Integer.toString(version);
    cp.awaitRequest(
        r -> r.typeUrl().equals(typeUrl) && r.versionInfo().equals(v) && !r.isNack(),
        "the ACK of version " + v + " of " + typeUrl);
  }

  private static String call(ManagedChannel channel, String xRoute) {
    if (xRoute == null) {
      return Backends.call(channel);
    }
    Metadata headers = new Metadata();
    headers.put(X_ROUTE, xRoute);
    return ClientCalls.blockingUnaryCall(
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
        Backends.NAME,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        "");
  }

  private static Map<String, Integer> spread(ManagedChannel channel, int calls, String xRoute) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < calls; i++) {
      counts.merge(call(channel, xRoute), 1, Integer::sum);
    }
    return counts;
  }

  /** Calls until every host in {@code hosts} has answered (round_robin warms up as it connects). */
  private static void awaitReached(ManagedChannel channel, String... hosts) {
    List<String> missing = new ArrayList<>(List.of(hosts));
    for (int i = 0; i < 1000 && !missing.isEmpty(); i++) {
      missing.remove(call(channel, null));
    }
    assertThat(missing).as("backends never reached").isEmpty();
  }

  @Test
  void roundRobinOverThreeBackendsThenAnEndpointLeavesWithNoFailedCall() throws Exception {
    push(
        List.of(Resources.route("", "c1").build()),
        Resources.edsCluster("c1", "e1").build(),
        endpoints("e1", 0, 1, 2));
    ManagedChannel channel = channel();
    awaitReached(channel, "127.0.0.2", "127.0.0.3", "127.0.0.4");

    // Once all three are connected, round robin spreads evenly.
    Map<String, Integer> counts = spread(channel, 300, null);
    assertThat(counts).containsOnlyKeys("127.0.0.2", "127.0.0.3", "127.0.0.4");
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(90, 110));

    // EDS drops 127.0.0.4: once the update is taken, it gets no call, and no call failed
    // (blockingUnaryCall throws on any failure).
    push(
        List.of(Resources.route("", "c1").build()),
        Resources.edsCluster("c1", "e1").build(),
        endpoints("e1", 0, 1));
    awaitAcked(XdsResourceType.ENDPOINTS.typeUrl());
    assertThat(spread(channel, 100, null)).containsOnlyKeys("127.0.0.2", "127.0.0.3");
  }

  @Test
  void headersAndWeightsRouteToClusters() throws Exception {
    Route byHeader =
        Resources.route("", "c2")
            .setMatch(
                Resources.route("", "c2").getMatch().toBuilder()
                    .addHeaders(
                        HeaderMatcher.newBuilder()
                            .setName("x-route")
                            .setStringMatch(StringMatcher.newBuilder().setExact("b"))))
            .build();
    Route split =
        Route.newBuilder()
            .setMatch(Resources.route("", "c1").getMatch())
            .setRoute(
                RouteAction.newBuilder()
                    .setWeightedClusters(
                        WeightedCluster.newBuilder()
                            .addClusters(
                                WeightedCluster.ClusterWeight.newBuilder()
                                    .setName("c1")
                                    .setWeight(UInt32Value.of(70)))
                            .addClusters(
                                WeightedCluster.ClusterWeight.newBuilder()
                                    .setName("c3")
                                    .setWeight(UInt32Value.of(30)))))
            .build();
    push(
        List.of(byHeader, split),
        Resources.edsCluster("c1", "e1").build(),
        Resources.edsCluster("c2", "e2").build(),
        Resources.edsCluster("c3", "e3").build(),
        endpoints("e1", 0),
        endpoints("e2", 1),
        endpoints("e3", 2));
    ManagedChannel channel = channel();

    assertThat(spread(channel, 20, "b")).containsOnlyKeys("127.0.0.3");
    Map<String, Integer> counts = spread(channel, 1000, null);
    assertThat(counts).containsOnlyKeys("127.0.0.2", "127.0.0.4");
    // 70/30 of 1000: the standard deviation is about 14.5, so +-60 is four of them.
    assertThat(counts.get("127.0.0.2")).isBetween(640, 760);
  }

  @Test
  void callsContinueOnTheCachedConfigWhileTheControlPlaneIsDown() throws Exception {
    push(
        List.of(Resources.route("", "c1").build()),
        Resources.edsCluster("c1", "e1").build(),
        endpoints("e1", 0, 1, 2));
    ManagedChannel channel = channel();
    awaitReached(channel, "127.0.0.2", "127.0.0.3", "127.0.0.4");

    cp.close(); // stopped by its PID
    assertThat(spread(channel, 90, null)).containsOnlyKeys("127.0.0.2", "127.0.0.3", "127.0.0.4");
  }

  @Test
  void aMissingListenerFailsCallsNamingIt() throws Exception {
    // The control plane serves no Listener "svc": the resolver hears it does not exist (the
    // default 15 s timer, or at once from the control plane's empty state) and calls fail with a
    // status naming it rather than hang.
    cp.setSnapshot(node, "1", List.of(Resources.routes("r1", "c1")));
    ManagedChannel channel = channel();
    dev.tern.StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.tern.StatusRuntimeException.class,
            () ->
                ClientCalls.blockingUnaryCall(
                    channel,
                    Backends.NAME,
                    CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                    ""));
    assertThat(e.getStatus().getCode()).isEqualTo(dev.tern.Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription()).contains("svc");
  }
}
