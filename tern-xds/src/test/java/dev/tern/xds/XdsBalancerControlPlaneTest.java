package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import com.google.protobuf.UInt32Value;
import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.MethodDescriptor;
import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import dev.tern.NameResolverRegistry;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.config.JsonParser;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TestMarshallers;
import dev.tern.xds.internal.XdsAttributes;
import io.envoyproxy.envoy.config.cluster.v3.CircuitBreakers;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.extensions.clusters.aggregate.v3.ClusterConfig;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The balancer tree below the cluster manager (cds, cluster_resolver, priority, weighted_target,
 * cluster_impl, round_robin), and an aggregate cluster, against the real control plane ({@code
 * tern-xds-controlplane}) and three real Tern servers on 127.0.0.2, .3 and .4. The {@code xds:}
 * name resolver is being written separately; until it lands, a test resolver here does its part for
 * the tree: it gives the channel the service config {@code {"loadBalancingConfig":
 * [{"cds_experimental": {"cluster": "c1"}}]}} and the test's XdsClient under {@link
 * XdsAttributes#XDS_CLIENT}.
 */
class XdsBalancerControlPlaneTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String[] HOSTS = {"127.0.0.2", "127.0.0.3", "127.0.0.4"};
  private static final MethodDescriptor<String, String> WHO =
      method("test.Backend/Who", MethodDescriptor.MethodType.UNARY);
  private static final MethodDescriptor<String, String> HOLD =
      method("test.Backend/Hold", MethodDescriptor.MethodType.UNARY);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final String node;
  private final Server[] servers = new Server[3];
  private final int[] ports = new int[3];
  private final Semaphore held = new Semaphore(0);
  private final CountDownLatch release = new CountDownLatch(1);
  private ControlPlaneProcess controlPlane;
  private XdsClient client;
  private int version;

  XdsBalancerControlPlaneTest(TestInfo info) {
    node = "node-" + info.getTestMethod().orElseThrow().getName();
  }

  private static MethodDescriptor<String, String> method(
      String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<String, String>newBuilder()
        .setType(type)
        .setFullMethodName(name)
        .setRequestMarshaller(TestMarshallers.utf8())
        .setResponseMarshaller(TestMarshallers.utf8())
        .build();
  }

  @BeforeEach
  void start() throws Exception {
    controlPlane = ControlPlaneProcess.start();
    closeables.add(controlPlane);
    String bootstrap = controlPlane.bootstrapJson(node);
    // A short does-not-exist timeout for the missing cluster; the others are pushed beforehand.
    client =
        XdsClient.create(
            Bootstrap.parse(bootstrap, "test bootstrap"),
            XdsClient.Options.defaults().withDoesNotExistTimeout(Duration.ofSeconds(3)));
    closeables.add(client);
    for (int i = 0; i < 3; i++) {
      startServer(i, 0);
    }
  }

  @AfterEach
  void closeAll() throws Exception {
    release.countDown();
    for (Server server : servers) {
      if (server != null) {
        server.shutdownNow();
        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    }
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private void startServer(int i, int port) throws Exception {
    String id = HOSTS[i];
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Backend")
            .addMethod(
                WHO,
                ServerCalls.asyncUnaryCall(
                    (request, response) -> {
                      response.onNext(id);
                      response.onCompleted();
                    }))
            .addMethod(
                HOLD,
                ServerCalls.asyncUnaryCall(
                    (request, response) -> {
                      held.release();
                      try {
                        release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      response.onNext(id);
                      response.onCompleted();
                    }))
            .build();
    servers[i] =
        NettyServerBuilder.forAddress(new InetSocketAddress(HOSTS[i], port))
            .addService(service)
            .build()
            .start();
    ports[i] = servers[i].getPort();
  }

  private void stopServer(int i) throws InterruptedException {
    servers[i].shutdownNow();
    assertThat(servers[i].awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    servers[i] = null;
  }

  /** Pushes cluster c1 (EDS e1, with {@code maxRequests} if set) and its endpoints. */
  private void push(Integer maxRequests, ClusterLoadAssignment endpoints) {
    var cluster = Resources.edsCluster("c1", "e1");
    if (maxRequests != null) {
      cluster.setCircuitBreakers(
          CircuitBreakers.newBuilder()
              .addThresholds(
                  CircuitBreakers.Thresholds.newBuilder()
                      .setMaxRequests(UInt32Value.of(maxRequests))));
    }
    List<Message> resources = List.of(cluster.build(), endpoints);
    controlPlane.setSnapshot(node, "v" + ++version, resources);
  }

  /** e1 with the given backends (by index) in one locality of priority 0. */
  private ClusterLoadAssignment backends(int... indexes) {
    LocalityLbEndpoints.Builder locality = Resources.locality("z", 1, 0);
    for (int i : indexes) {
      locality.addLbEndpoints(Resources.endpoint(HOSTS[i], ports[i]));
    }
    return ClusterLoadAssignment.newBuilder().setClusterName("e1").addEndpoints(locality).build();
  }

  /** A channel whose (test) resolver selects cds_experimental for {@code cluster}. */
  private ManagedChannel channel(String cluster) {
    NameResolverRegistry registry = new NameResolverRegistry();
    registry.register(new TestXdsResolverProvider(cluster, client));
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget("xds-test:///service")
            .nameResolverRegistry(registry)
            .usePlaintext()
            .build();
    closeables.add(
        () -> {
          channel.shutdownNow();
          assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        });
    return channel;
  }

  private static String who(ManagedChannel channel, CallOptions options) {
    return ClientCalls.blockingUnaryCall(
        channel, WHO, options.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS), "?");
  }

  /** Starts a call that the backend holds until the test's {@code release}. */
  private static CompletableFuture<String> hold(ManagedChannel channel) {
    return ClientCalls.futureUnaryCall(
        channel.newCall(
            HOLD, CallOptions.DEFAULT.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS)),
        "hold");
  }

  /** Asserts that a call on {@code channel} is refused by c1's circuit breaker at {@code max}. */
  private static void assertCircuitBreakerOpen(ManagedChannel channel, int max) {
    assertThatThrownBy(() -> who(channel, CallOptions.DEFAULT))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo(
                      "cluster c1: circuit breaker open, max_requests " + max + " calls in flight");
            });
  }

  private static String who(ManagedChannel channel) {
    return who(channel, CallOptions.DEFAULT.withWaitForReady());
  }

  /** Calls until {@code done} holds for the last answer; every call must succeed. */
  private static void callUntil(ManagedChannel channel, Predicate<String> done) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!done.test(who(channel))) {
      assertThat(System.nanoTime()).as("waiting for the balancer").isLessThan(deadline);
    }
  }

  private static Map<String, Integer> spread(ManagedChannel channel, int calls) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < calls; i++) {
      counts.merge(who(channel), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void roundRobinOverThreeBackendsAndAnEndpointRemovedByEdsGetsNoMoreCalls() {
    push(null, backends(0, 1, 2));
    ManagedChannel channel = channel("c1");
    List<String> seen = new ArrayList<>();
    callUntil(
        channel,
        who -> {
          if (!seen.contains(who)) {
            seen.add(who);
          }
          return seen.size() == 3;
        });
    assertThat(spread(channel, 300))
        .containsExactlyInAnyOrderEntriesOf(Map.of(HOSTS[0], 100, HOSTS[1], 100, HOSTS[2], 100));

    push(null, backends(0, 1));
    // Calls keep succeeding while the update lands; then .4 gets none.
    int[] withoutFourth = {0};
    callUntil(
        channel,
        who -> {
          withoutFourth[0] = who.equals(HOSTS[2]) ? 0 : withoutFourth[0] + 1;
          return withoutFourth[0] == 30;
        });
    assertThat(spread(channel, 100))
        .containsExactlyInAnyOrderEntriesOf(Map.of(HOSTS[0], 50, HOSTS[1], 50));
  }

  @Test
  void callsFailOverToPriorityOneWhenPriorityZeroStopsAndComeBack() throws Exception {
    ClusterLoadAssignment twoPriorities =
        ClusterLoadAssignment.newBuilder()
            .setClusterName("e1")
            .addEndpoints(
                Resources.locality("z0", 1, 0)
                    .addLbEndpoints(Resources.endpoint(HOSTS[0], ports[0])))
            .addEndpoints(
                Resources.locality("z1", 1, 1)
                    .addLbEndpoints(Resources.endpoint(HOSTS[1], ports[1])))
            .build();
    push(null, twoPriorities);
    ManagedChannel channel = channel("c1");
    assertThat(spread(channel, 20)).containsExactlyEntriesOf(Map.of(HOSTS[0], 20));

    int port = ports[0];
    stopServer(0);
    callUntil(channel, HOSTS[1]::equals);
    assertThat(spread(channel, 20)).containsExactlyEntriesOf(Map.of(HOSTS[1], 20));

    startServer(0, port);
    callUntil(channel, HOSTS[0]::equals);
    assertThat(spread(channel, 20)).containsExactlyEntriesOf(Map.of(HOSTS[0], 20));
  }

  @Test
  void aggregateClusterUsesItsClustersInOrderAndFailsOverToTheNext() throws Exception {
    Cluster aggregate =
        Cluster.newBuilder()
            .setName("agg")
            .setClusterType(
                Cluster.CustomClusterType.newBuilder()
                    .setName("envoy.clusters.aggregate")
                    .setTypedConfig(
                        Any.pack(
                            ClusterConfig.newBuilder()
                                .addClusters("c1")
                                .addClusters("c2")
                                .build())))
            .build();
    controlPlane.setSnapshot(
        node,
        "v1",
        List.of(
            aggregate,
            Resources.edsCluster("c1", "e1").build(),
            Resources.edsCluster("c2", "e2").build(),
            Resources.endpoints("e1").toBuilder()
                .setEndpoints(
                    0,
                    Resources.locality("z", 1, 0)
                        .addLbEndpoints(Resources.endpoint(HOSTS[0], ports[0])))
                .build(),
            Resources.endpoints("e2").toBuilder()
                .setEndpoints(
                    0,
                    Resources.locality("z", 1, 0)
                        .addLbEndpoints(Resources.endpoint(HOSTS[1], ports[1])))
                .build()));
    ManagedChannel channel = channel("agg");
    assertThat(spread(channel, 20)).containsExactlyEntriesOf(Map.of(HOSTS[0], 20));

    stopServer(0);
    callUntil(channel, HOSTS[1]::equals);
    assertThat(spread(channel, 20)).containsExactlyEntriesOf(Map.of(HOSTS[1], 20));
  }

  @Test
  void dropOverloadsDropAboutTheConfiguredFraction() {
    ClusterLoadAssignment withDrops =
        backends(0, 1, 2).toBuilder()
            .setPolicy(
                ClusterLoadAssignment.Policy.newBuilder()
                    .addDropOverloads(
                        ClusterLoadAssignment.Policy.DropOverload.newBuilder()
                            .setCategory("throttle")
                            .setDropPercentage(
                                FractionalPercent.newBuilder()
                                    .setNumerator(30)
                                    .setDenominator(FractionalPercent.DenominatorType.HUNDRED))))
            .build();
    push(null, withDrops);
    ManagedChannel channel = channel("c1");
    int dropped = 0;
    for (int i = 0; i < 1000; i++) {
      try {
        who(channel);
      } catch (StatusRuntimeException e) {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(e.getStatus().getDescription()).isEqualTo("dropped by load balancer: throttle");
        dropped++;
      }
    }
    // 30% of 1000: the binomial's standard deviation is about 14.5; allow five of them.
    assertThat(dropped).isBetween(228, 372);
  }

  @Test
  void maxRequestsRefusesCallsBeyondTheLimitAndFreedSlotsAreReused() throws Exception {
    push(3, backends(0, 1, 2));
    ManagedChannel channel = channel("c1");
    who(channel); // the tree is up
    List<CompletableFuture<String>> holding = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      holding.add(hold(channel));
    }
    assertThat(held.tryAcquire(3, WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    assertCircuitBreakerOpen(channel, 3);

    release.countDown();
    for (CompletableFuture<String> call : holding) {
      assertThat(call.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isIn((Object[]) HOSTS);
    }
    // The slots are free again (a stream's slot is released when it closes, just after the
    // response arrives, so allow the first calls to race it).
    callUntil(channel, who -> true);
    assertThat(spread(channel, 30).values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(30);
  }

  /** A32: max_requests limits the cluster's calls across every channel of the process. */
  @Test
  void maxRequestsCountsCallsOfEveryChannelToTheCluster() throws Exception {
    push(2, backends(0, 1, 2));
    ManagedChannel first = channel("c1");
    ManagedChannel second = channel("c1");
    who(first);
    who(second);
    List<CompletableFuture<String>> holding = new ArrayList<>();
    for (ManagedChannel channel : List.of(first, second)) {
      holding.add(hold(channel));
    }
    assertThat(held.tryAcquire(2, WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    // One call in flight on each channel: the third, on either, is refused.
    assertCircuitBreakerOpen(first, 2);
    assertCircuitBreakerOpen(second, 2);

    release.countDown();
    for (CompletableFuture<String> call : holding) {
      assertThat(call.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isIn((Object[]) HOSTS);
    }
    // The freed slots serve both channels again.
    callUntil(first, who -> true);
    callUntil(second, who -> true);
    assertThat(spread(second, 30).values().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(30);
  }

  @Test
  void missingClusterFailsCallsNamingIt() {
    push(null, backends(0));
    ManagedChannel channel = channel("nope");
    assertThatThrownBy(() -> who(channel, CallOptions.DEFAULT))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).contains("cluster nope does not exist");
            });
  }

  /**
   * Stands in for the xds resolver (written separately): selects cds_experimental for one cluster
   * and hands the balancers the XdsClient. Its resolvers are used in the channel's context.
   */
  private static final class TestXdsResolverProvider extends NameResolverProvider {
    private final String cluster;
    private final XdsClient client;

    TestXdsResolverProvider(String cluster, XdsClient client) {
      this.cluster = cluster;
      this.client = client;
    }

    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public int priority() {
      return 5;
    }

    @Override
    public String getScheme() {
      return "xds-test";
    }

    @Override
    public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
      return List.of(InetSocketAddress.class);
    }

    @Override
    public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
      return new NameResolver() {
        @Override
        public String getServiceAuthority() {
          return "service";
        }

        @Override
        public void start(Listener listener) {
          Map<String, ?> serviceConfig =
              JsonParser.parseObject(
                  "{\"loadBalancingConfig\": [{\"cds_experimental\": {\"cluster\": \""
                      + cluster
                      + "\"}}]}");
          listener.onResult(
              ResolutionResult.newBuilder()
                  .setAttributes(
                      Attributes.newBuilder().set(XdsAttributes.XDS_CLIENT, client).build())
                  .setServiceConfig(args.getServiceConfigParser().parseServiceConfig(serviceConfig))
                  .build());
        }

        @Override
        public void shutdown() {}
      };
    }
  }
}
