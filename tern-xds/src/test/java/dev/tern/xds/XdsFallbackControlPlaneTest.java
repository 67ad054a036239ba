package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.testing.LogCapture;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Fallback between control planes (A71) and authorities with control planes of their own (A47), end
 * to end: two real control planes ({@code tern-xds-controlplane}, each on free ports of 127.0.0.1,
 * stopped by its PID), channels to {@code xds:} targets as a user makes them (the bootstrap in the
 * {@code io.grpc.xds.bootstrapConfig} property, the process's shared XdsClient pool and default
 * options), and Tern backends on 127.0.0.2-4. Each control plane's own record of streams and
 * requests tells which one the client talked to. Skips when the control plane is not installed
 * (fails under {@code CI=true}).
 */
class XdsFallbackControlPlaneTest {
  private static final Duration WAIT = Duration.ofSeconds(45);
  private static final String AUTHORITY = "a.example";

  private final String node;
  private final XdsMesh mesh = new XdsMesh();
  private ControlPlaneProcess secondary;
  private Backends backends;

  XdsFallbackControlPlaneTest(TestInfo info) {
    node = "fallback-" + info.getTestMethod().orElseThrow().getName();
  }

  @BeforeEach
  void setUp() throws Exception {
    mesh.start(node, "127.0.0.2", "127.0.0.3", "127.0.0.4");
    secondary = mesh.controlPlane();
    backends = mesh.backends();
  }

  @AfterEach
  void closeAll() throws Exception {
    mesh.close();
  }

  /** Listener {@code listener} -> routes -> cluster -> endpoints: the backend {@code index}. */
  private List<Message> chain(String listener, String prefix, int index) {
    String routes = prefix + "r1";
    String cluster = prefix + "c1";
    String eds = prefix + "e1";
    ClusterLoadAssignment endpoints =
        ClusterLoadAssignment.newBuilder()
            .setClusterName(eds)
            .addEndpoints(
                Resources.locality("z1", 1, 0)
                    .addLbEndpoints(Resources.endpoint(backends.host(index), backends.port(index))))
            .build();
    return List.of(
        Resources.listener(listener, routes),
        Resources.routes(routes, cluster),
        Resources.edsCluster(cluster, eds).build(),
        endpoints);
  }

  private List<Message> chain(int index) {
    return chain("svc", "", index);
  }

  private String bootstrap(String... servers) {
    return "{\"xds_servers\": ["
        + String.join(", ", servers)
        + "], \"node\": {\"id\": \""
        + node
        + "\"}}";
  }

  private ManagedChannel channel(String target) {
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
    mesh.closeLater(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    return channel;
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what + " within " + WAIT).isLessThan(deadline);
      Thread.sleep(50); // a poll interval: the loop waits on the condition
    }
  }

  /** Calls until one is answered by {@code host}; every call must succeed. */
  private static void awaitAnsweredBy(ManagedChannel channel, String host)
      throws InterruptedException {
    await(() -> Backends.call(channel).equals(host), "a call answered by " + host);
  }

  private static int opened(ControlPlaneProcess cp) {
    return ((Number) cp.streams().get("opened")).intValue();
  }

  private static int open(ControlPlaneProcess cp) {
    return ((Number) cp.streams().get("open")).intValue();
  }

  @Test
  void primaryDownAtStartSecondaryServesThenThePrimaryTakesOverWhenBack() throws Exception {
    // A port where nothing listens: a control plane's, once it is stopped.
    ControlPlaneProcess gone = ControlPlaneProcess.start();
    int primaryPort = gone.adsPort();
    gone.close();
    secondary.setSnapshot(node, "1", chain(1));
    mesh.useBootstrap(
        bootstrap(
            ControlPlaneProcess.serverJson("127.0.0.1:" + primaryPort), secondary.serverJson()));

    // (a) The configuration comes from the secondary, and calls succeed.
    ManagedChannel channel = channel("xds:///svc");
    awaitAnsweredBy(channel, "127.0.0.3");
    for (int i = 0; i < 20; i++) {
      assertThat(Backends.call(channel)).isEqualTo("127.0.0.3");
    }
    assertThat(secondary.requests()).isNotEmpty().allMatch(r -> r.node().equals(node));

    // (b) The primary comes back on its port with another endpoint: once it answers, its
    // configuration is the one in use, and the stream to the secondary is closed.
    ControlPlaneProcess primary = mesh.closeLater(ControlPlaneProcess.start(primaryPort));
    primary.setSnapshot(node, "1", chain(0));
    awaitAnsweredBy(channel, "127.0.0.2");
    await(() -> open(secondary) == 0, "the stream to the secondary closed");
    for (int i = 0; i < 20; i++) {
      assertThat(Backends.call(channel)).isEqualTo("127.0.0.2");
    }
    assertThat(open(primary)).isEqualTo(1);
  }

  @Test
  void primaryLostAfterDeliveringEverythingCausesNoFallback() throws Exception {
    ControlPlaneProcess primary = mesh.closeLater(ControlPlaneProcess.start());
    primary.setSnapshot(node, "1", chain(0));
    secondary.setSnapshot(node, "1", chain(1)); // what fallback would wrongly switch to
    mesh.useBootstrap(bootstrap(primary.serverJson(), secondary.serverJson()));
    ManagedChannel channel = channel("xds:///svc");
    awaitAnsweredBy(channel, "127.0.0.2");
    for (XdsResourceType<?> type : XdsClient.TYPES) {
      primary.awaitRequest(
          r -> r.typeUrl().equals(type.typeUrl()) && r.versionInfo().equals("1"),
          "the ACK of " + type.typeName());
    }

    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      primary.close(); // stopped by its PID
      // The client sees the primary unreachable (a stream that fails before any response).
      await(
          () ->
              XdsClientTest.messages(logs).stream()
                  .anyMatch(m -> m.contains(primary.target()) && m.contains("before any response")),
          "a connectivity failure to the primary");
    }
    // Every resource is cached: calls go on with the primary's configuration and the secondary
    // is never contacted.
    for (int i = 0; i < 50; i++) {
      assertThat(Backends.call(channel)).isEqualTo("127.0.0.2");
    }
    assertThat(opened(secondary)).isZero();
    assertThat(secondary.requests()).isEmpty();

    // Another target has nothing cached: its own client (one per target, A71) falls back, while
    // the first target's channel stays on the primary's cached configuration.
    List<Message> other = new ArrayList<>(chain(1));
    other.addAll(chain("svc2", "other-", 2));
    secondary.setSnapshot(node, "2", other);
    ManagedChannel channel2 = channel("xds:///svc2");
    awaitAnsweredBy(channel2, "127.0.0.4");
    assertThat(secondary.requests())
        .flatExtracting(ControlPlaneProcess.Request::resourceNames)
        .doesNotContain("svc");
    for (int i = 0; i < 20; i++) {
      assertThat(Backends.call(channel)).isEqualTo("127.0.0.2");
    }
  }

  @Test
  void anAuthorityWithItsOwnControlPlaneGetsItsResourcesFromIt() throws Exception {
    ControlPlaneProcess authority = mesh.closeLater(ControlPlaneProcess.start());
    String prefix = "xdstp://" + AUTHORITY + "/";
    String listener = prefix + "envoy.config.listener.v3.Listener/svc";
    List<Message> federated = new ArrayList<>();
    for (Message m : chain(listener, prefix + "envoy.config.route.v3.RouteConfiguration/", 2)) {
      federated.add(m);
    }
    // The xdstp: names of one chain, one per type (a route, cluster and EDS name in its type).
    federated.set(
        1,
        Resources.routes(
            prefix + "envoy.config.route.v3.RouteConfiguration/r1",
            prefix + "envoy.config.cluster.v3.Cluster/c1"));
    federated.set(
        2,
        Resources.edsCluster(
                prefix + "envoy.config.cluster.v3.Cluster/c1",
                prefix + "envoy.config.endpoint.v3.ClusterLoadAssignment/e1")
            .build());
    federated.set(
        3,
        ((ClusterLoadAssignment) federated.get(3))
            .toBuilder()
                .setClusterName(prefix + "envoy.config.endpoint.v3.ClusterLoadAssignment/e1")
                .build());
    authority.setSnapshot(node, "1", federated);
    secondary.setSnapshot(node, "1", chain(0));
    mesh.useBootstrap(
        "{\"xds_servers\": ["
            + secondary.serverJson()
            + "], \"node\": {\"id\": \""
            + node
            + "\"}, \"authorities\": {\""
            + AUTHORITY
            + "\": {\"xds_servers\": ["
            + authority.serverJson()
            + "]}}}");

    ManagedChannel plain = channel("xds:///svc");
    ManagedChannel federatedChannel = channel("xds://" + AUTHORITY + "/svc");
    for (int i = 0; i < 10; i++) {
      assertThat(Backends.call(plain)).isEqualTo("127.0.0.2");
      assertThat(Backends.call(federatedChannel)).isEqualTo("127.0.0.4");
    }
    // Each control plane was asked only for its own authority's names.
    assertThat(authority.requests())
        .flatExtracting(ControlPlaneProcess.Request::resourceNames)
        .isNotEmpty()
        .allMatch(name -> name.startsWith(prefix));
    assertThat(secondary.requests())
        .flatExtracting(ControlPlaneProcess.Request::resourceNames)
        .isNotEmpty()
        .noneMatch(name -> name.startsWith("xdstp:"));
    assertThat(Map.of("authority", open(authority), "top level", open(secondary)))
        .containsEntry("authority", 1)
        .containsEntry("top level", 1);
  }
}
