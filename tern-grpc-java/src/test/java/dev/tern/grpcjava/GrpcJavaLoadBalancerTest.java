package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.grpcjava.TestBalancers.FixedPickProvider;
import dev.tern.grpcjava.TestBalancers.ShufflingPickFirstProvider;
import dev.tern.testing.LogCapture;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusOr;
import io.grpc.StatusRuntimeException;
import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.TestServiceGrpc;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A load balancer written for grpc-java and registered in grpc-java's registry, as grpc-java's
 * custom load balancer example does, balances a bridged channel: a service config or the channel's
 * default policy names it, its config is parsed by its provider, it picks among real servers, hears
 * its subchannels' states, and what its pickers return (errors, drops) is what calls see.
 */
class GrpcJavaLoadBalancerTest {
  private static final String SCHEME = "lbtest";

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final List<Server> servers = new ArrayList<>();
  private final List<InetSocketAddress> addresses = new ArrayList<>();
  private final List<LoadBalancerProvider> registered = new ArrayList<>();
  private final ShufflingPickFirstProvider shuffling = new ShufflingPickFirstProvider();

  /** A service config the test's resolver gives with the servers' addresses, if not null. */
  private volatile Map<String, ?> resolvedServiceConfig;

  private final NameResolverProvider resolver =
      new GrpcJavaNameResolverTest.FixedProvider(SCHEME, this::resolveBothServers);
  private final List<ManagedChannel> channels = new ArrayList<>();

  /** Calls each server answered, by port. */
  private final Map<Integer, AtomicInteger> answered = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws Exception {
    for (int i = 0; i < 2; i++) {
      Server server = Peers.countingServer(scheduler, answered);
      servers.add(server);
      addresses.add(new InetSocketAddress("127.0.0.1", server.getPort()));
    }
    register(shuffling);
    register(new FixedPickProvider());
    NameResolverRegistry.getDefaultRegistry().register(resolver);
  }

  @AfterEach
  void stop() throws Exception {
    NameResolverRegistry.getDefaultRegistry().deregister(resolver);
    for (LoadBalancerProvider provider : registered) {
      LoadBalancerRegistry.getDefaultRegistry().deregister(provider);
    }
    for (ManagedChannel channel : channels) {
      Peers.close(channel);
    }
    for (Server server : servers) {
      Peers.close(null, server, scheduler);
    }
  }

  private void resolveBothServers(NameResolver.Listener2 listener, NameResolver.Args args) {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    for (InetSocketAddress address : addresses) {
      groups.add(new EquivalentAddressGroup(address));
    }
    NameResolver.ResolutionResult.Builder result =
        NameResolver.ResolutionResult.newBuilder().setAddressesOrError(StatusOr.fromValue(groups));
    Map<String, ?> config = resolvedServiceConfig;
    if (config != null) {
      result.setServiceConfig(args.getServiceConfigParser().parseServiceConfig(config));
    }
    listener.onResult(result.build());
  }

  private void register(LoadBalancerProvider provider) {
    LoadBalancerRegistry.getDefaultRegistry().register(provider);
    registered.add(provider);
  }

  /** A channel to both servers (through the test's resolver) with this default service config. */
  private TestServiceGrpc.TestServiceBlockingStub stubWith(Map<String, ?> serviceConfig) {
    ManagedChannel channel =
        Grpc.newChannelBuilder(SCHEME + ":///both", InsecureChannelCredentials.create())
            .defaultServiceConfig(serviceConfig)
            .build();
    channels.add(channel);
    return TestServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** A service config naming {@code policy} with {@code config}, as JSON would give it. */
  private static Map<String, ?> serviceConfig(String policy, Map<String, ?> config) {
    return Map.of("loadBalancingConfig", List.of(Map.of(policy, config)));
  }

  /** A seed with which the shuffling balancer connects to {@code server} first. */
  private long seedChoosing(InetSocketAddress server) {
    for (long seed = 0; ; seed++) {
      if (ShufflingPickFirstProvider.firstOf(addresses, seed).equals(server)) {
        return seed;
      }
    }
  }

  private static Map<String, ?> shufflingConfig(long seed) {
    return serviceConfig(ShufflingPickFirstProvider.NAME, Map.of("randomSeed", (double) seed));
  }

  @Test
  void theServiceConfigsGrpcJavaBalancerChoosesTheServerWithItsConfig() {
    for (InetSocketAddress server : addresses) {
      answered.clear();
      TestServiceGrpc.TestServiceBlockingStub stub =
          stubWith(shufflingConfig(seedChoosing(server)));
      for (int i = 0; i < 5; i++) {
        stub.emptyCall(Empty.getDefaultInstance());
      }
      assertThat(answered.keySet())
          .as("every call went to the server the balancer's seed chose")
          .containsExactly(server.getPort());
      assertThat(answered.get(server.getPort())).hasValue(5);
    }
  }

  @Test
  void theChannelsDefaultPolicyCanBeAGrpcJavaBalancer() {
    ManagedChannel channel =
        Grpc.newChannelBuilder(SCHEME + ":///both", InsecureChannelCredentials.create())
            .defaultLoadBalancingPolicy(ShufflingPickFirstProvider.NAME)
            .build();
    channels.add(channel);

    TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance());

    assertThat(shuffling.states)
        .as("the grpc-java balancer's subchannel")
        .contains(ConnectivityState.READY);
  }

  @Test
  void theStreamTracerOfAPickHearsTheCall() {
    List<String> events = new CopyOnWriteArrayList<>();
    shuffling.tracerFactory =
        new ClientStreamTracer.Factory() {
          @Override
          public ClientStreamTracer newClientStreamTracer(
              ClientStreamTracer.StreamInfo info, Metadata headers) {
            events.add(
                "new stream, deadline set: " + (info.getCallOptions().getDeadline() != null));
            return new ClientStreamTracer() {
              @Override
              public void streamClosed(Status status) {
                events.add("closed " + status.getCode());
              }
            };
          }
        };

    stubWith(shufflingConfig(0)).emptyCall(Empty.getDefaultInstance());

    assertThat(events).containsExactly("new stream, deadline set: true", "closed OK");
  }

  @Test
  void theBalancerHearsItsSubchannelsStatesAndMovesCallsWhenItsServerGoesAway() throws Exception {
    InetSocketAddress first = addresses.get(0);
    TestServiceGrpc.TestServiceBlockingStub stub = stubWith(shufflingConfig(seedChoosing(first)));
    stub.emptyCall(Empty.getDefaultInstance());
    assertThat(answered.keySet()).containsExactly(first.getPort());
    assertThat(List.copyOf(shuffling.states))
        .as("states the balancer heard")
        .containsExactly(ConnectivityState.CONNECTING, ConnectivityState.READY);
    shuffling.states.clear();

    servers.get(0).shutdownNow();
    assertThat(servers.get(0).awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(shuffling.states.poll(10, TimeUnit.SECONDS))
        .as("the subchannel lost its connection")
        .isEqualTo(ConnectivityState.IDLE);
    // The balancer's picker asks the subchannel to connect again; it tries the next address.
    stub.emptyCall(Empty.getDefaultInstance());

    assertThat(answered.get(addresses.get(1).getPort())).hasValue(1);
    assertThat(List.copyOf(shuffling.states))
        .containsSubsequence(ConnectivityState.CONNECTING, ConnectivityState.READY);
  }

  @Test
  void aConfigTheBalancersProviderRefusesIsAClearError() {
    Map<String, ?> bad =
        serviceConfig(ShufflingPickFirstProvider.NAME, Map.of("randomSeed", "eleven"));

    assertThatThrownBy(() -> stubWith(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(ShufflingPickFirstProvider.NAME)
        .hasMessageContaining("randomSeed must be a number, got eleven");

    // From the resolver, it fails the calls with the provider's description.
    resolvedServiceConfig = bad;
    ManagedChannel channel =
        Grpc.newChannelBuilder(SCHEME + ":///both", InsecureChannelCredentials.create()).build();
    channels.add(channel);
    try (LogCapture log = new LogCapture("dev.tern.internal.channel.ServiceConfigSelector", null)) {
      assertThatThrownBy(
              () -> TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.getStatus().getDescription())
                    .contains("randomSeed must be a number, got eleven");
              });
      assertThat(log.records())
          .singleElement()
          .extracting(LogRecord::getMessage)
          .asString()
          .contains("randomSeed must be a number, got eleven");
    }
  }

  private void assertPickFails(String pick, Status.Code code, String description) {
    TestServiceGrpc.TestServiceBlockingStub stub =
        stubWith(serviceConfig(FixedPickProvider.NAME, Map.of("pick", pick)));
    assertThatThrownBy(() -> stub.emptyCall(Empty.getDefaultInstance()))
        .as(pick)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              assertThat(e.getStatus().getDescription()).contains(description);
            });
  }

  @Test
  void anErrorOrADropFromTheBalancersPickerFailsCallsWithItsStatus() {
    assertPickFails("error", Status.Code.PERMISSION_DENIED, "over quota");
    assertPickFails("drop", Status.Code.UNAVAILABLE, "dropped by the balancer");
    assertThat(answered).isEmpty();
  }

  @Test
  void whatCannotMapFailsCallsNamingIt() {
    assertPickFails("throw", Status.Code.INTERNAL, "picker threw java.lang.IllegalStateException");
    assertPickFails("foreign", Status.Code.INTERNAL, "subchannel its helper did not create");
    try (LogCapture log =
        new LogCapture("dev.tern.grpcjava.internal.balancer.GrpcJavaLoadBalancer", null)) {
      assertPickFails("oob", Status.Code.INTERNAL, "Helper.createOobChannel");
      assertThat(log.records())
          .extracting(LogRecord::getLevel, LogRecord::getMessage)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(
                  Level.SEVERE, "grpc-java load balancer " + FixedPickProvider.NAME + " threw"));
    }
  }

  @Test
  void ternsOwnPoliciesKeepTheirNames() {
    AtomicInteger built = new AtomicInteger();
    register(
        new TestBalancers.NamedProvider("round_robin") {
          @Override
          public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
            built.incrementAndGet();
            throw new AssertionError("grpc-java's round_robin must not run on Tern");
          }
        });
    TestServiceGrpc.TestServiceBlockingStub stub = stubWith(serviceConfig("round_robin", Map.of()));
    for (int i = 0; i < 200 && answered.size() < servers.size(); i++) {
      stub.emptyCall(Empty.getDefaultInstance());
    }
    assertThat(answered).hasSize(2);
    assertThat(built).hasValue(0);
  }
}
