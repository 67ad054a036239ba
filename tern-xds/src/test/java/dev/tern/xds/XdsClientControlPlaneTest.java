package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.tern.Status;
import dev.tern.testing.LogCapture;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * {@link XdsClient} against a real control plane: Envoy's go-control-plane (snapshot cache and ADS
 * server) in {@code tern-xds-controlplane}, one process per test on free ports of 127.0.0.1.
 */
class XdsClientControlPlaneTest {
  private static final String CDS = XdsResourceType.CLUSTER.typeUrl();
  private static final String LDS = XdsResourceType.LISTENER.typeUrl();
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private String node;

  XdsClientControlPlaneTest(TestInfo info) {
    node = "node-" + info.getTestMethod().orElseThrow().getName();
  }

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

  private ControlPlaneProcess controlPlane() throws Exception {
    return closeLater(ControlPlaneProcess.start());
  }

  private XdsClient client(ControlPlaneProcess cp, Duration doesNotExist, String... features) {
    String json =
        "{\"xds_servers\": [{\"server_uri\": \""
            + cp.target()
            + "\", \"channel_creds\": [{\"type\": \"insecure\"}], \"server_features\": ["
            + String.join(",", List.of(features).stream().map(f -> "\"" + f + "\"").toList())
            + "]}], \"node\": {\"id\": \""
            + node
            + "\"}}";
    XdsClient.Options options =
        XdsClient.Options.defaults()
            .withDoesNotExistTimeout(doesNotExist)
            .withBackoff(Duration.ofMillis(50), Duration.ofMillis(500));
    return closeLater(XdsClient.create(Bootstrap.parse(json, "test bootstrap"), options));
  }

  private XdsClient client(ControlPlaneProcess cp) {
    return client(cp, Duration.ofSeconds(30));
  }

  private static List<Message> chain(String version, int port) {
    return List.of(
        Resources.listener("l1", "r1"),
        Resources.routes("r1", "c1"),
        Resources.edsCluster("c1", "e1").build(),
        Resources.endpoints("e1", port));
  }

  private static <T> RecordingWatcher<T> watch(
      XdsClient client, XdsResourceType<T> type, String name) {
    RecordingWatcher<T> watcher = new RecordingWatcher<>();
    client.watch(type, name, watcher);
    return watcher;
  }

  /** Polls the control plane's record of requests until one matches. */
  private static ControlPlaneProcess.Request awaitRequest(
      ControlPlaneProcess cp, Predicate<ControlPlaneProcess.Request> matches, String what)
      throws InterruptedException {
    return cp.awaitRequest(matches, what);
  }

  @Test
  void listenerToRoutesToClusterToEndpoints() throws Exception {
    ControlPlaneProcess cp = controlPlane();
    cp.setSnapshot(node, "1", chain("1", 8080));
    XdsClient client = client(cp);

    XdsListener listener = watch(client, XdsResourceType.LISTENER, "l1").awaitChanged();
    assertThat(listener.rdsName()).isEqualTo("r1");
    XdsRouteConfig routes =
        watch(client, XdsResourceType.ROUTE_CONFIGURATION, listener.rdsName()).awaitChanged();
    String clusterName = routes.virtualHosts().get(0).routes().get(0).action().cluster();
    assertThat(clusterName).isEqualTo("c1");
    XdsCluster cluster = watch(client, XdsResourceType.CLUSTER, clusterName).awaitChanged();
    assertThat(cluster.edsServiceName()).isEqualTo("e1");
    XdsEndpoints endpoints =
        watch(client, XdsResourceType.ENDPOINTS, cluster.edsServiceName()).awaitChanged();
    assertThat(endpoints.localities().get(0).endpoints().get(0).port()).isEqualTo(8080);

    for (XdsResourceType<?> type : XdsClient.TYPES) {
      ControlPlaneProcess.Request ack =
          awaitRequest(
              cp,
              r -> r.typeUrl().equals(type.typeUrl()) && r.versionInfo().equals("1"),
              "ACK of " + type);
      assertThat(ack.isNack()).isFalse();
      assertThat(ack.responseNonce()).isNotEmpty();
      assertThat(ack.node()).isEqualTo(node);
    }
    // One stream for everything (ADS).
    assertThat(cp.requests()).extracting(ControlPlaneProcess.Request::stream).containsOnly(1L);
  }

  @Test
  void updateReachesTheWatcher() throws Exception {
    ControlPlaneProcess cp = controlPlane();
    cp.setSnapshot(node, "1", chain("1", 8080));
    XdsClient client = client(cp);
    RecordingWatcher<XdsEndpoints> endpoints = watch(client, XdsResourceType.ENDPOINTS, "e1");
    endpoints.awaitChanged();

    cp.setSnapshot(node, "2", chain("2", 9090));
    XdsEndpoints updated =
        endpoints.awaitChanged(e -> e.localities().get(0).endpoints().get(0).port() == 9090);
    assertThat(updated.clusterName()).isEqualTo("e1");
    awaitRequest(
        cp,
        r -> r.typeUrl().equals(XdsResourceType.ENDPOINTS.typeUrl()) && r.versionInfo().equals("2"),
        "ACK of 2");
  }

  @Test
  void invalidVersionIsNackedAndTheLastGoodStays() throws Exception {
    ControlPlaneProcess cp = controlPlane();
    cp.setSnapshot(node, "1", chain("1", 8080));
    XdsClient client = client(cp);
    RecordingWatcher<XdsCluster> cluster = watch(client, XdsResourceType.CLUSTER, "c1");
    RecordingWatcher<XdsListener> listener = watch(client, XdsResourceType.LISTENER, "l1");
    XdsCluster good = cluster.awaitChanged();
    listener.awaitChanged();
    awaitRequest(cp, r -> r.typeUrl().equals(CDS) && r.versionInfo().equals("1"), "ACK of 1");

    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      cp.setSnapshot(
          node,
          "2",
          List.of(
              Resources.listener("l1", Resources.hcm("r1").clearHttpFilters().build()),
              Resources.routes("r1", "c1"),
              Resources.edsCluster("c1", "e1").setLbPolicy(Cluster.LbPolicy.MAGLEV).build(),
              Resources.endpoints("e1", 8080)));

      Status clusterError = cluster.awaitError();
      assertThat(clusterError.getDescription())
          .contains("version 2 rejected (NACK): Cluster \"c1\": lb_policy MAGLEV is not supported");
      Status listenerError = listener.awaitError();
      assertThat(listenerError.getDescription())
          .contains("Listener \"l1\": http_filters: empty (the router filter is required)");

      ControlPlaneProcess.Request nack =
          awaitRequest(cp, r -> r.typeUrl().equals(CDS) && r.isNack(), "NACK of the cluster");
      assertThat(nack.versionInfo()).isEqualTo("1"); // the version still in use
      assertThat(nack.responseNonce()).isNotEmpty();
      assertThat(nack.errorDetail()).isEqualTo("Cluster \"c1\": lb_policy MAGLEV is not supported");
      ControlPlaneProcess.Request listenerNack =
          awaitRequest(cp, r -> r.typeUrl().equals(LDS) && r.isNack(), "NACK of the listener");
      assertThat(listenerNack.errorDetail()).contains("Listener \"l1\": http_filters");

      // The cache still serves version 1 to a new watcher.
      RecordingWatcher<XdsCluster> late = watch(client, XdsResourceType.CLUSTER, "c1");
      assertThat(late.awaitChanged()).isEqualTo(good);
      assertThat(XdsClientTest.messages(logs))
          .anyMatch(m -> m.contains("NACK of Cluster version 2") && m.contains("MAGLEV"));
    }

    // A fixed version is taken and ACKed.
    cp.setSnapshot(
        node,
        "3",
        List.of(
            Resources.listener("l1", "r1"),
            Resources.routes("r1", "c1"),
            Resources.edsCluster("c1", "e1").setLbPolicy(Cluster.LbPolicy.RING_HASH).build(),
            Resources.endpoints("e1", 8080)));
    assertThat(cluster.awaitChanged().lbPolicy().kind())
        .isEqualTo(XdsCluster.LbPolicy.Kind.RING_HASH);
    awaitRequest(
        cp, r -> r.typeUrl().equals(CDS) && r.versionInfo().equals("3") && !r.isNack(), "ACK of 3");
  }

  @Test
  void resourceNeverSentDoesNotExistAfterTheTimer() throws Exception {
    ControlPlaneProcess cp = controlPlane();
    cp.setSnapshot(node, "1", chain("1", 8080));
    XdsClient client = client(cp, Duration.ofMillis(300));
    RecordingWatcher<XdsCluster> missing = watch(client, XdsResourceType.CLUSTER, "never-sent");
    RecordingWatcher<XdsEndpoints> missingEds = watch(client, XdsResourceType.ENDPOINTS, "none");
    assertThat(missing.awaitDoesNotExist()).isEqualTo("never-sent");
    assertThat(missingEds.awaitDoesNotExist()).isEqualTo("none");
    awaitRequest(
        cp,
        r -> r.typeUrl().equals(CDS) && r.resourceNames().equals(List.of("never-sent")),
        "CDS subscription");

    // It turns up later: the watcher hears of it.
    List<Message> withIt = new ArrayList<>(chain("2", 8080));
    withIt.add(Resources.edsCluster("never-sent", "").build());
    cp.setSnapshot(node, "2", withIt);
    assertThat(missing.awaitChanged().name()).isEqualTo("never-sent");
  }

  /** Version 1 with listeners l1 and l2, watched and received; the watchers of both. */
  private List<RecordingWatcher<XdsListener>> twoListeners(ControlPlaneProcess cp, XdsClient client)
      throws InterruptedException {
    cp.setSnapshot(
        node, "1", List.of(Resources.listener("l1", "r1"), Resources.listener("l2", "r2")));
    RecordingWatcher<XdsListener> l1 = watch(client, XdsResourceType.LISTENER, "l1");
    RecordingWatcher<XdsListener> l2 = watch(client, XdsResourceType.LISTENER, "l2");
    l1.awaitChanged();
    l2.awaitChanged();
    return List.of(l1, l2);
  }

  @Test
  void listenerLeftOutOfAStateOfTheWorldResponseIsDeleted() throws Exception {
    ControlPlaneProcess cp = controlPlane();
    XdsClient client = client(cp);
    List<RecordingWatcher<XdsListener>> watchers = twoListeners(cp, client);
    RecordingWatcher<XdsListener> l1 = watchers.get(0);
    RecordingWatcher<XdsListener> l2 = watchers.get(1);

    cp.setSnapshot(node, "2", List.of(Resources.listener("l1", "r1-new")));
    assertThat(l2.awaitDoesNotExist()).isEqualTo("l2");
    assertThat(l1.awaitChanged().rdsName()).isEqualTo("r1-new");
  }

  @Test
  void ignoreResourceDeletionKeepsTheListener() throws Exception {
    ControlPlaneProcess cp = controlPlane();
    XdsClient client = client(cp, Duration.ofSeconds(30), "ignore_resource_deletion");
    List<RecordingWatcher<XdsListener>> watchers = twoListeners(cp, client);
    RecordingWatcher<XdsListener> l1 = watchers.get(0);
    RecordingWatcher<XdsListener> l2 = watchers.get(1);
    XdsListener kept = watch(client, XdsResourceType.LISTENER, "l2").awaitChanged();

    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      cp.setSnapshot(node, "2", List.of(Resources.listener("l1", "r1-new")));
      assertThat(l1.awaitChanged().rdsName()).isEqualTo("r1-new");
      awaitRequest(cp, r -> r.typeUrl().equals(LDS) && r.versionInfo().equals("2"), "ACK of 2");
      assertThat(l2.poll()).isNull();
      assertThat(watch(client, XdsResourceType.LISTENER, "l2").awaitChanged()).isEqualTo(kept);
      assertThat(XdsClientTest.messages(logs))
          .anyMatch(m -> m.contains("Listener \"l2\" left out of version 2; kept"));
    }
  }

  @Test
  void subscriptionChangesAreSent() throws Exception {
    ControlPlaneProcess cp = controlPlane();
    cp.setSnapshot(node, "1", chain("1", 8080));
    XdsClient client = client(cp);
    RecordingWatcher<XdsCluster> c1 = watch(client, XdsResourceType.CLUSTER, "c1");
    RecordingWatcher<XdsCluster> c2 = watch(client, XdsResourceType.CLUSTER, "c2");
    c1.awaitChanged();
    awaitRequest(
        cp, r -> r.typeUrl().equals(CDS) && r.resourceNames().equals(List.of("c1", "c2")), "c1+c2");
    client.cancelWatch(XdsResourceType.CLUSTER, "c2", c2);
    awaitRequest(
        cp,
        r ->
            r.typeUrl().equals(CDS)
                && r.resourceNames().equals(List.of("c1"))
                && r.versionInfo().equals("1"),
        "c1 alone, with the version it has");
  }

  @Test
  void controlPlaneRestartedClientReconnectsKeepsItsCacheAndResubscribes() throws Exception {
    ControlPlaneProcess first = ControlPlaneProcess.start();
    int port = first.adsPort();
    cpSnapshot(first, "1", 8080);
    XdsClient client;
    RecordingWatcher<XdsCluster> cluster;
    RecordingWatcher<XdsEndpoints> endpoints;
    XdsCluster before;
    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      try {
        client = client(first);
        cluster = watch(client, XdsResourceType.CLUSTER, "c1");
        endpoints = watch(client, XdsResourceType.ENDPOINTS, "e1");
        before = cluster.awaitChanged();
        endpoints.awaitChanged();
        awaitRequest(first, r -> r.typeUrl().equals(CDS) && r.versionInfo().equals("1"), "ACK");
      } finally {
        first.close(); // killed by its PID
      }

      Status down = cluster.awaitError();
      assertThat(down.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      // The cache serves a new watcher while the control plane is away.
      assertThat(watch(client, XdsResourceType.CLUSTER, "c1").awaitChanged()).isEqualTo(before);

      ControlPlaneProcess second = closeLater(ControlPlaneProcess.start(port));
      ControlPlaneProcess.Request resubscribed =
          awaitRequest(
              second,
              r -> r.typeUrl().equals(CDS) && r.resourceNames().equals(List.of("c1")),
              "re-subscription to c1");
      assertThat(resubscribed.versionInfo()).isEqualTo("1");
      assertThat(resubscribed.node()).isEqualTo(node);
      awaitRequest(
          second,
          r ->
              r.typeUrl().equals(XdsResourceType.ENDPOINTS.typeUrl())
                  && r.versionInfo().equals("1"),
          "re-subscription to e1 with version 1");

      cpSnapshot(second, "2", 9090);
      endpoints.awaitChanged(e -> e.localities().get(0).endpoints().get(0).port() == 9090);
      assertThat(XdsClientTest.messages(logs))
          .anyMatch(m -> m.contains("ADS stream to " + first.target() + " closed"));
      client.close(); // before the second control plane stops, whose end it would log
    }
  }

  private void cpSnapshot(ControlPlaneProcess cp, String version, int port) {
    cp.setSnapshot(node, version, chain(version, port));
  }

  @Test
  void floodOfUpdatesEndsAtTheLastOne() throws Exception {
    ControlPlaneProcess cp = controlPlane();
    cpSnapshot(cp, "0", 10000);
    XdsClient client = client(cp);
    RecordingWatcher<XdsEndpoints> endpoints = watch(client, XdsResourceType.ENDPOINTS, "e1");
    endpoints.awaitChanged();
    int updates = 200;
    for (int i = 1; i <= updates; i++) {
      cpSnapshot(cp, Integer.toString(i), 10000 + i);
    }
    int seen = 0;
    while (endpoints.awaitChanged().localities().get(0).endpoints().get(0).port()
        != 10000 + updates) {
      seen++;
    }
    assertThat(seen).isLessThan(updates);
    awaitRequest(
        cp,
        r ->
            r.typeUrl().equals(XdsResourceType.ENDPOINTS.typeUrl())
                && r.versionInfo().equals(Integer.toString(updates)),
        "ACK of the last version");
  }
}
