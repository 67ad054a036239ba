package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.tern.CallOptions;
import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * ring_hash (gRFC A42) end to end: a RING_HASH cluster and a route with hash policies, pushed by
 * the real control plane; a channel to {@code xds:///svc} with every part the real one; three Tern
 * backends on 127.0.0.2-4.
 */
class XdsRingHashEndToEndTest {
  private static final Metadata.Key<String> X_KEY =
      Metadata.Key.of("x-key", Metadata.ASCII_STRING_MARSHALLER);
  private static final List<String> HOSTS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

  private final XdsMesh mesh = new XdsMesh();
  private final String node;
  private ControlPlaneProcess cp;
  private Backends backends;

  XdsRingHashEndToEndTest(TestInfo info) {
    node = "ring-" + info.getTestMethod().orElseThrow().getName();
  }

  @BeforeEach
  void setUp() throws Exception {
    mesh.start(node, HOSTS.toArray(new String[0]));
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

  /** Pushes Listener svc -> r1 with one route to ring-hash cluster c1 over the three backends. */
  private void push(RouteAction.HashPolicy policy) throws InterruptedException {
    Route route =
        Resources.route("", "c1")
            .setRoute(RouteAction.newBuilder().setCluster("c1").addHashPolicy(policy))
            .build();
    LocalityLbEndpoints.Builder locality = Resources.locality("z1", 1, 0);
    for (int i = 0; i < HOSTS.size(); i++) {
      locality.addLbEndpoints(Resources.endpoint(backends.host(i), backends.port(i)));
    }
    List<Message> resources =
        List.of(
            Resources.listener("svc", "r1"),
            Resources.routes("r1", route),
            Resources.edsCluster("c1", "e1").setLbPolicy(Cluster.LbPolicy.RING_HASH).build(),
            ClusterLoadAssignment.newBuilder().setClusterName("e1").addEndpoints(locality).build());
    cp.setSnapshot(node, "1", resources);
  }

  /** One fail-fast call with {@code x-key: key}: the host that answered (throws on failure). */
  private static String call(ManagedChannel channel, String key) {
    Metadata headers = new Metadata();
    headers.put(X_KEY, key);
    return ClientCalls.blockingUnaryCall(
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
        Backends.NAME,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        "");
  }

  private static RouteAction.HashPolicy headerPolicy() {
    return RouteAction.HashPolicy.newBuilder()
        .setHeader(RouteAction.HashPolicy.Header.newBuilder().setHeaderName("x-key"))
        .build();
  }

  @Test
  void aHeaderKeySticksToOneBackendAndKeysSpreadOverAll() throws Exception {
    push(headerPolicy());
    ManagedChannel channel = channel();

    String first = call(channel, "user-1");
    for (int i = 0; i < 200; i++) {
      assertThat(call(channel, "user-1")).isEqualTo(first);
    }

    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 300; i++) {
      counts.merge(call(channel, "key-" + i), 1, Integer::sum);
    }
    assertThat(counts).containsOnlyKeys(HOSTS);
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isGreaterThan(45)); // > 15%
  }

  @Test
  void stoppingAKeysBackendMovesOnlyItsKeysAndFailsNoCall() throws Exception {
    push(headerPolicy());
    ManagedChannel channel = channel();
    Map<String, String> before = new LinkedHashMap<>();
    for (int i = 0; i < 90; i++) {
      before.put("key-" + i, call(channel, "key-" + i));
    }
    String stopped = before.get("key-0");
    backends.stop(HOSTS.indexOf(stopped));

    // Fail-fast calls: none fails (blockingUnaryCall would throw); the stopped backend's keys go
    // to the next endpoint on the ring, every other key stays where it was.
    int moved = 0;
    for (Map.Entry<String, String> entry : before.entrySet()) {
      String now = call(channel, entry.getKey());
      assertThat(now).isNotEqualTo(stopped);
      if (entry.getValue().equals(stopped)) {
        moved++;
      } else {
        assertThat(now).as(entry.getKey()).isEqualTo(entry.getValue());
      }
    }
    assertThat(moved).isPositive();
    // A moved key keeps its new backend.
    String movedTo = call(channel, "key-0");
    for (int i = 0; i < 20; i++) {
      assertThat(call(channel, "key-0")).isEqualTo(movedTo);
    }
  }

  @Test
  void theChannelIdPolicyKeepsEachChannelOnOneBackend() throws Exception {
    push(
        RouteAction.HashPolicy.newBuilder()
            .setFilterState(
                RouteAction.HashPolicy.FilterState.newBuilder().setKey("io.grpc.channel_id"))
            .build());
    List<String> chosen = new ArrayList<>();
    for (int c = 0; c < 6; c++) {
      ManagedChannel channel = channel();
      String host = call(channel, "any");
      for (int i = 0; i < 30; i++) {
        // The header changes per call; the channel's id alone decides.
        assertThat(call(channel, "k" + i)).isEqualTo(host);
      }
      chosen.add(host);
    }
    assertThat(chosen).allMatch(HOSTS::contains);
  }
}
