package dev.tern.xds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import com.google.protobuf.UInt32Value;
import dev.tern.CallOptions;
import dev.tern.ConnectivityState;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.LoadBalancerRegistry;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.NameResolverRegistry;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TestMarshallers;
import dev.tern.xds.internal.XdsAttributes;
import dev.tern.xds.internal.resolver.XdsNameResolverProvider;
import dev.tern.xds.internal.resolver.XdsRandom;
import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.config.route.v3.WeightedCluster;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The {@code xds:} resolver end to end: a channel to {@code xds:///svc} learns its Listener and
 * RouteConfiguration from the real control plane ({@code tern-xds-controlplane}, go-control-plane),
 * routes calls by path, header and weight through the cluster manager, and applies route timeouts.
 *
 * <p><b>The real {@code cds_experimental} balancer is replaced here</b>, so that the test can see
 * which of the cluster manager's children are alive (a cluster kept while a call that chose it is
 * in flight): a test-only provider of that name ({@link FakeCdsProvider}, priority 10, so it wins
 * over the real one) maps a cluster name to the addresses of Netty servers the test started and
 * balances them with round_robin. Everything above it (resolver, selector, service config, cluster
 * manager, channel) is the real thing; {@link XdsEndToEndTest} runs the whole tree, nothing
 * replaced.
 */
class XdsResolverControlPlaneTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final MethodDescriptor<byte[], byte[]> A_CALL = method("svc.A/Call");
  private static final MethodDescriptor<byte[], byte[]> B_CALL = method("svc.B/Call");
  private static final MethodDescriptor<byte[], byte[]> A_SLOW = method("svc.A/Slow");
  private static final Metadata.Key<String> X_ROUTE =
      Metadata.Key.of("x-route", Metadata.ASCII_STRING_MARSHALLER);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final String node;
  private final FakeCdsProvider cds = new FakeCdsProvider();
  private ControlPlaneProcess cp;

  XdsResolverControlPlaneTest(TestInfo info) {
    node = "node-" + info.getTestMethod().orElseThrow().getName();
  }

  @BeforeEach
  void setUp() throws Exception {
    LoadBalancerRegistry.getDefaultRegistry().register(cds);
    closeables.add(() -> LoadBalancerRegistry.getDefaultRegistry().deregister(cds));
    cp = ControlPlaneProcess.start();
    closeables.add(cp);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    FakeCdsProvider.CLUSTERS.clear();
  }

  private static MethodDescriptor<byte[], byte[]> method(String name) {
    return MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
        .setFullMethodName(name)
        .setType(MethodDescriptor.MethodType.UNARY)
        .build();
  }

  /** Slow calls the servers have received. */
  private final java.util.concurrent.atomic.AtomicInteger slowStarted =
      new java.util.concurrent.atomic.AtomicInteger();

  /** A server whose every method answers with its name; Slow answers after two seconds. */
  private int server(String name) throws Exception {
    ServerCalls.UnaryMethod<byte[], byte[]> reply =
        (request, response) -> {
          response.onNext(name.getBytes(UTF_8));
          response.onCompleted();
        };
    ServerCalls.UnaryMethod<byte[], byte[]> slow =
        (request, response) -> {
          slowStarted.incrementAndGet();
          try {
            Thread.sleep(2000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          response.onNext(name.getBytes(UTF_8));
          response.onCompleted();
        };
    Server server =
        ServerBuilder.forPort(0)
            .addService(
                ServerServiceDefinition.builder("svc.A")
                    .addMethod(A_CALL, ServerCalls.asyncUnaryCall(reply))
                    .addMethod(A_SLOW, ServerCalls.asyncUnaryCall(slow))
                    .build())
            .addService(
                ServerServiceDefinition.builder("svc.B")
                    .addMethod(B_CALL, ServerCalls.asyncUnaryCall(reply))
                    .build())
            .build()
            .start();
    closeables.add(() -> server.shutdownNow());
    FakeCdsProvider.CLUSTERS.put(
        name,
        List.of(new EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", server.getPort()))));
    return server.getPort();
  }

  private ManagedChannel channel(String target) {
    String json = cp.bootstrapJson(node);
    Bootstrap bootstrap = Bootstrap.parse(json, "test bootstrap");
    XdsClientPool pool =
        XdsClientPool.withOptions(
            XdsClient.Options.defaults()
                .withDoesNotExistTimeout(Duration.ofSeconds(2))
                .withBackoff(Duration.ofMillis(50), Duration.ofMillis(500)));
    NameResolverRegistry resolvers = new NameResolverRegistry();
    resolvers.register(new XdsNameResolverProvider(() -> bootstrap, pool, XdsRandom.DEFAULT));
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget(target)
            .nameResolverRegistry(resolvers)
            .usePlaintext()
            .build();
    closeables.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(5, TimeUnit.SECONDS);
        });
    return channel;
  }

  private static String call(
      ManagedChannel channel, MethodDescriptor<byte[], byte[]> method, String xRoute) {
    Metadata headers = new Metadata();
    if (xRoute != null) {
      headers.put(X_ROUTE, xRoute);
    }
    CallOptions options =
        CallOptions.DEFAULT.withDeadlineAfter(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    return new String(
        ClientCalls.blockingUnaryCall(
            dev.tern.ClientInterceptors.intercept(
                channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
            method,
            options,
            new byte[0]),
        UTF_8);
  }

  private static Route.Builder prefix(String prefix, String cluster) {
    return Route.newBuilder()
        .setMatch(RouteMatch.newBuilder().setPrefix(prefix))
        .setRoute(RouteAction.newBuilder().setCluster(cluster));
  }

  private static RouteConfiguration routes(String name, Route... routes) {
    VirtualHost.Builder host =
        VirtualHost.newBuilder().setName("vh-" + name).addDomains("svc").addDomains("svc.*");
    for (Route r : routes) {
      host.addRoutes(r);
    }
    // A host for other domains, to show the resolver chose by domain.
    VirtualHost other =
        VirtualHost.newBuilder()
            .setName("other")
            .addDomains("*")
            .addRoutes(Route.newBuilder().setMatch(RouteMatch.newBuilder().setPrefix("")))
            .build();
    return RouteConfiguration.newBuilder()
        .setName(name)
        .addVirtualHosts(other)
        .addVirtualHosts(host)
        .build();
  }

  private static RouteConfiguration firstRoutes() {
    Route byHeader =
        Route.newBuilder()
            .setMatch(
                RouteMatch.newBuilder()
                    .setPrefix("")
                    .addHeaders(
                        HeaderMatcher.newBuilder()
                            .setName("x-route")
                            .setStringMatch(StringMatcher.newBuilder().setExact("b"))))
            .setRoute(RouteAction.newBuilder().setCluster("B"))
            .build();
    Route slow =
        Route.newBuilder()
            .setMatch(RouteMatch.newBuilder().setPath("/svc.A/Slow"))
            .setRoute(
                RouteAction.newBuilder()
                    .setCluster("A")
                    .setMaxStreamDuration(
                        RouteAction.MaxStreamDuration.newBuilder()
                            .setMaxStreamDuration(
                                com.google.protobuf.Duration.newBuilder().setNanos(200_000_000))))
            .build();
    Route split =
        Route.newBuilder()
            .setMatch(RouteMatch.newBuilder().setPrefix("/svc.B/"))
            .setRoute(
                RouteAction.newBuilder()
                    .setWeightedClusters(
                        WeightedCluster.newBuilder()
                            .addClusters(
                                WeightedCluster.ClusterWeight.newBuilder()
                                    .setName("A")
                                    .setWeight(UInt32Value.of(70)))
                            .addClusters(
                                WeightedCluster.ClusterWeight.newBuilder()
                                    .setName("B")
                                    .setWeight(UInt32Value.of(30)))))
            .build();
    return routes("r1", byHeader, slow, prefix("/svc.A/", "A").build(), split);
  }

  private void snapshot(String version, Message... resources) {
    cp.setSnapshot(node, version, List.of(resources));
  }

  @Test
  void routesByPathHeaderAndWeightThenFollowAnLdsUpdate() throws Exception {
    server("A");
    server("B");
    server("C");
    snapshot("1", Resources.listener("svc", "r1"), firstRoutes());
    ManagedChannel channel = channel("xds:///svc");

    assertThat(call(channel, A_CALL, null)).isEqualTo("A");
    assertThat(call(channel, A_CALL, "b")).isEqualTo("B");
    assertThat(call(channel, B_CALL, "b")).isEqualTo("B");
    assertThat(FakeCdsProvider.xdsClient.get()).isNotNull();

    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 1000; i++) {
      counts.merge(call(channel, B_CALL, null), 1, Integer::sum);
    }
    // 70/30: the standard deviation of 1000 draws is about 14.5; allow more than 4 of them.
    assertThat(counts.getOrDefault("A", 0)).isBetween(640, 760);
    assertThat(counts.getOrDefault("A", 0) + counts.getOrDefault("B", 0)).isEqualTo(1000);

    // The route's max_stream_duration (200 ms) is the call's timeout: Slow answers in 2 s.
    long start = System.nanoTime();
    assertThatThrownBy(() -> call(channel, A_SLOW, null))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));

    // An LDS update with inline routes: everything for svc.A now goes to C.
    RouteConfiguration inline = routes("inline", prefix("/svc.A/", "C").build());
    snapshot(
        "2",
        Resources.listener(
            "svc", Resources.hcm("unused").clearRds().setRouteConfig(inline).build()));
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!call(channel, A_CALL, null).equals("C")) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(20);
    }
    assertThat(call(channel, A_CALL, "b")).isEqualTo("C"); // the header route is gone
    StatusRuntimeException noRoute =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class, () -> call(channel, B_CALL, null));
    assertThat(noRoute.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(noRoute.getStatus().getDescription())
        .isEqualTo(
            "no xDS route matched /svc.B/Call in virtual host \"vh-inline\" of"
                + " RouteConfiguration \"inline\"");
    // Clusters A and B left the cluster manager once no route used them.
    assertThat(FakeCdsProvider.live).containsOnlyKeys("C");
  }

  @Test
  void aClusterStaysWhileACallThatChoseItIsUncommitted() throws Exception {
    server("A");
    server("C");
    snapshot("1", Resources.listener("svc", "r1"), routes("r1", prefix("/svc.A/", "A").build()));
    ManagedChannel channel = channel("xds:///svc");
    assertThat(call(channel, A_CALL, null)).isEqualTo("A");
    // A call to A whose response (and so its headers) comes only after two seconds.
    java.util.concurrent.CompletableFuture<byte[]> slow =
        ClientCalls.futureUnaryCall(
            channel.newCall(A_SLOW, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS)),
            new byte[0]);
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (slowStarted.get() == 0) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(10);
    }
    // The routes move everything to C while the slow call has not committed.
    snapshot("2", Resources.listener("svc", "r1"), routes("r1", prefix("/svc.A/", "C").build()));
    while (!call(channel, A_CALL, null).equals("C")) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(20);
    }
    assertThat(FakeCdsProvider.live).containsKeys("A", "C"); // kept for the slow call
    assertThat(new String(slow.get(20, TimeUnit.SECONDS), UTF_8)).isEqualTo("A");
    // Once it has its response, A leaves the service config and the cluster manager.
    while (FakeCdsProvider.live.containsKey("A")) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(20);
    }
    assertThat(FakeCdsProvider.live).containsOnlyKeys("C");
  }

  @Test
  void aMissingListenerFailsCallsNamingIt() {
    snapshot("1", Resources.listener("other", "r1"), firstRoutes());
    ManagedChannel channel = channel("xds:///missing");
    long start = System.nanoTime();
    StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class, () -> call(channel, A_CALL, null));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription()).contains("xDS Listener \"missing\" does not exist");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void aMissingRouteConfigurationFailsCallsNamingIt() {
    snapshot("1", Resources.listener("svc", "absent-routes"));
    ManagedChannel channel = channel("xds:///svc");
    StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class, () -> call(channel, A_CALL, null));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription())
        .contains("xDS RouteConfiguration \"absent-routes\" (of Listener \"svc\") does not exist");
  }

  @Test
  void anUnknownTargetAuthorityIsAClearError() {
    ManagedChannel channel = channel("xds://nowhere/svc");
    StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class, () -> call(channel, A_CALL, null));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription())
        .contains("xds target authority \"nowhere\" is not in the bootstrap's authorities");
  }

  /**
   * TEST ONLY: stands in for the real {@code cds_experimental} (see the class comment). Config
   * {@code {"cluster": name}}; the cluster's addresses come from {@link #CLUSTERS}, balanced by
   * round_robin.
   */
  static final class FakeCdsProvider extends LoadBalancerProvider {
    static final Map<String, List<EquivalentAddressGroup>> CLUSTERS = new ConcurrentHashMap<>();
    static final Map<String, Integer> live = new ConcurrentHashMap<>();
    static final AtomicReference<XdsClient> xdsClient = new AtomicReference<>();

    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public int getPriority() {
      return 10;
    }

    @Override
    public String getPolicyName() {
      return "cds_experimental";
    }

    @Override
    public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
      Object cluster = rawConfig.get("cluster");
      return cluster instanceof String
          ? ConfigOrError.fromConfig(cluster)
          : ConfigOrError.fromError(Status.INVALID_ARGUMENT.withDescription("no cluster"));
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      LoadBalancerProvider rr =
          LoadBalancerRegistry.getDefaultRegistry().getProvider("round_robin");
      Object rrConfig = rr.parseLoadBalancingPolicyConfig(Map.of()).getConfig();
      LoadBalancer child = rr.newLoadBalancer(helper);
      return new LoadBalancer() {
        private String cluster;

        @Override
        public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
          cluster = (String) resolved.getLoadBalancingPolicyConfig();
          live.put(cluster, 1);
          XdsClient client = resolved.getAttributes().get(XdsAttributes.XDS_CLIENT);
          if (client != null) {
            xdsClient.set(client);
          }
          List<EquivalentAddressGroup> addresses = CLUSTERS.get(cluster);
          if (addresses == null) {
            helper.updateBalancingState(
                ConnectivityState.TRANSIENT_FAILURE,
                new FixedResultPicker(
                    PickResult.withError(
                        Status.UNAVAILABLE.withDescription("test cds: no cluster " + cluster))));
            return Status.OK;
          }
          return child.acceptResolvedAddresses(
              resolved.toBuilder()
                  .setAddresses(addresses)
                  .setLoadBalancingPolicyConfig(rrConfig)
                  .build());
        }

        @Override
        public void handleNameResolutionError(Status error) {
          child.handleNameResolutionError(error);
        }

        @Override
        public void shutdown() {
          if (cluster != null) {
            live.remove(cluster);
          }
          child.shutdown();
        }
      };
    }
  }
}
