package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.BoolValue;
import com.google.protobuf.Duration;
import com.google.protobuf.FloatValue;
import com.google.protobuf.Message;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.LogCapture;
import dev.tern.xds.orca.CallMetricRecorder;
import dev.tern.xds.orca.MetricRecorder;
import dev.tern.xds.orca.OrcaMetricReportingServerInterceptor;
import dev.tern.xds.orca.OrcaService;
import io.envoyproxy.envoy.config.cluster.v3.LoadBalancingPolicy;
import io.envoyproxy.envoy.config.core.v3.TypedExtensionConfig;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.extensions.load_balancing_policies.client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * weighted_round_robin (gRFC A58) over ORCA (A51) end to end: the real control plane serves a
 * cluster whose {@code load_balancing_policy} is ClientSideWeightedRoundRobin; three Tern backends
 * on 127.0.0.2-4 report the same qps at application utilizations 0.2, 0.4 and 0.8 (weights 4:2:1),
 * per call in a trailer or out of band; a channel to {@code xds:///svc} with every part the real
 * one sends them calls in that proportion.
 */
class XdsWeightedRoundRobinEndToEndTest {
  private static final List<String> HOSTS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");
  private static final double[] UTILIZATION = {0.2, 0.4, 0.8};

  private final String node;
  private final XdsMesh mesh = new XdsMesh();
  private final List<Server> servers = new ArrayList<>();
  private final ScheduledExecutorService orcaTimer = Executors.newSingleThreadScheduledExecutor();

  XdsWeightedRoundRobinEndToEndTest(TestInfo info) {
    node = "wrr-" + info.getTestMethod().orElseThrow().getName();
  }

  @BeforeEach
  void setUp() throws Exception {
    mesh.start(node); // the backends are this test's own, below
  }

  @AfterEach
  void closeAll() throws Exception {
    try {
      for (Server server : servers) {
        server.shutdownNow();
      }
      for (Server server : servers) {
        server.awaitTermination(10, TimeUnit.SECONDS);
      }
      orcaTimer.shutdownNow();
      assertThat(orcaTimer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      mesh.close();
    }
  }

  /** Starts the backends: each answers {@link Backends#NAME} with its host and reports its load. */
  private void startBackends(boolean perCall) throws Exception {
    for (int i = 0; i < HOSTS.size(); i++) {
      String host = HOSTS.get(i);
      double utilization = UTILIZATION[i];
      MetricRecorder metrics = MetricRecorder.create();
      metrics.setQpsMetric(100);
      metrics.setApplicationUtilizationMetric(utilization);
      ServerServiceDefinition service =
          ServerServiceDefinition.builder("tern.test.Backend")
              .addMethod(
                  Backends.NAME,
                  ServerCalls.asyncUnaryCall(
                      (request, response) -> {
                        CallMetricRecorder.current()
                            .recordQpsMetric(100)
                            .recordApplicationUtilizationMetric(utilization);
                        response.onNext(host);
                        response.onCompleted();
                      }))
              .build();
      NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(host, 0));
      if (perCall) {
        builder.addService(
            ServerInterceptors.intercept(service, OrcaMetricReportingServerInterceptor.create()));
      } else {
        builder
            .addService(service)
            .addService(OrcaService.create(metrics, orcaTimer, java.time.Duration.ofMillis(100)));
      }
      servers.add(builder.build().start());
    }
  }

  private void push(ClientSideWeightedRoundRobin wrr) throws InterruptedException {
    push("1", wrr);
  }

  private void push(String version, ClientSideWeightedRoundRobin wrr) throws InterruptedException {
    LocalityLbEndpoints.Builder locality = Resources.locality("z1", 1, 0);
    for (int i = 0; i < HOSTS.size(); i++) {
      locality.addLbEndpoints(Resources.endpoint(HOSTS.get(i), servers.get(i).getPort()));
    }
    List<Message> resources =
        List.of(
            Resources.listener("svc", "r1"),
            Resources.routes("r1", "c1"),
            Resources.edsCluster("c1", "e1")
                .setLoadBalancingPolicy(
                    LoadBalancingPolicy.newBuilder()
                        .addPolicies(
                            LoadBalancingPolicy.Policy.newBuilder()
                                .setTypedExtensionConfig(
                                    TypedExtensionConfig.newBuilder()
                                        .setName("wrr")
                                        .setTypedConfig(Any.pack(wrr)))))
                .build(),
            ClusterLoadAssignment.newBuilder().setClusterName("e1").addEndpoints(locality).build());
    mesh.controlPlane().setSnapshot(node, version, resources);
  }

  private static Map<String, Integer> spread(ManagedChannel channel, int calls) {
    Map<String, Integer> counts = new HashMap<>();
    for (String host : HOSTS) {
      counts.put(host, 0);
    }
    for (int i = 0; i < calls; i++) {
      counts.merge(Backends.call(channel), 1, Integer::sum);
    }
    return counts;
  }

  /** Whether {@code counts} follow the weights 4:2:1, roughly. */
  private static boolean weighted(Map<String, Integer> counts, int calls) {
    double a = counts.get(HOSTS.get(0)) / (double) calls;
    double b = counts.get(HOSTS.get(1)) / (double) calls;
    double c = counts.get(HOSTS.get(2)) / (double) calls;
    return a > b
        && b > c
        && Math.abs(a - 4 / 7.0) < 0.08
        && Math.abs(b - 2 / 7.0) < 0.07
        && Math.abs(c - 1 / 7.0) < 0.05;
  }

  /**
   * Calls in rounds of 700 until a round follows the weights (they count once the reports have come
   * and the balancer's next weight update has run), for at most 30 s; returns the last round.
   */
  private static Map<String, Integer> awaitWeighted(ManagedChannel channel) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    Map<String, Integer> counts;
    do {
      counts = spread(channel, 700);
    } while (!weighted(counts, 700) && System.nanoTime() < deadline);
    return counts;
  }

  private static ClientSideWeightedRoundRobin.Builder fast() {
    return ClientSideWeightedRoundRobin.newBuilder()
        .setBlackoutPeriod(Duration.newBuilder())
        .setWeightUpdatePeriod(Duration.newBuilder().setNanos(100_000_000));
  }

  @Test
  void perCallReportsSpreadCallsByWeight() throws Exception {
    startBackends(true);
    push(fast().build());
    ManagedChannel channel = mesh.channel();

    Map<String, Integer> counts = awaitWeighted(channel);
    assertThat(weighted(counts, 700)).as("4:2:1 over 700 calls, was %s", counts).isTrue();
    // Every backend still gets calls: a weight is a share, not an exclusion.
    assertThat(counts.values()).allMatch(c -> c > 0);
  }

  @Test
  void outOfBandReportsSpreadCallsByWeight() throws Exception {
    startBackends(false);
    push(
        fast()
            .setEnableOobLoadReport(BoolValue.of(true))
            .setOobReportingPeriod(Duration.newBuilder().setNanos(100_000_000))
            .build());
    ManagedChannel channel = mesh.channel();

    Map<String, Integer> counts = awaitWeighted(channel);
    assertThat(weighted(counts, 700)).as("4:2:1 over 700 calls, was %s", counts).isTrue();
  }

  @Test
  void aBadConfigIsNackedNamingTheFieldAndCallsGoOn() throws Exception {
    startBackends(true);
    push(fast().build());
    ManagedChannel channel = mesh.channel();
    assertThat(spread(channel, 30).values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(30);

    try (LogCapture logs = new LogCapture(XdsClient.class)) {
      push("2", fast().setErrorUtilizationPenalty(FloatValue.of(-1)).build());
      ControlPlaneProcess.Request nack =
          mesh.controlPlane()
              .awaitRequest(
                  r -> r.typeUrl().equals(XdsResourceType.CLUSTER.typeUrl()) && r.isNack(),
                  "the NACK of the Cluster of version 2");
      assertThat(nack.errorDetail())
          .contains(
              "Cluster \"c1\": load_balancing_policy.policies[0].typed_extension_config"
                  + ".typed_config.error_utilization_penalty: must be at least 0, was -1.0");
      assertThat(logs.records()).isNotEmpty();
    }
    assertThat(spread(channel, 30).values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(30);
  }
}
