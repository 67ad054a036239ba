package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.EquivalentAddressGroup;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
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
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A name resolver written for grpc-java and registered in grpc-java's registry, as grpc-java's
 * load-balancing and name-resolution examples do, resolves a bridged channel's target: its
 * addresses reach Tern's balancer, its service config is applied, and its errors fail calls with
 * its status.
 */
class GrpcJavaNameResolverTest {
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final List<Server> servers = new ArrayList<>();
  private final List<NameResolverProvider> registered = new ArrayList<>();

  /** Calls each server answered, by port. */
  private final Map<Integer, AtomicInteger> answered = new ConcurrentHashMap<>();

  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    for (int i = 0; i < 2; i++) {
      Server server = Peers.countingServer(scheduler, answered);
      servers.add(server);
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (NameResolverProvider provider : registered) {
      NameResolverRegistry.getDefaultRegistry().deregister(provider);
    }
    if (channel != null) {
      Peers.close(channel);
    }
    for (Server server : servers) {
      Peers.close(null, server, scheduler);
    }
  }

  private void register(NameResolverProvider provider) {
    NameResolverRegistry.getDefaultRegistry().register(provider);
    registered.add(provider);
  }

  @Test
  void addressesAndServiceConfigOfAGrpcJavaResolverAreUsed() {
    List<EquivalentAddressGroup> addresses = new ArrayList<>();
    for (Server server : servers) {
      addresses.add(
          new EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", server.getPort())));
    }
    // round_robin only from the resolver's service config: without it, pick_first would send
    // every call to the first server.
    Map<String, ?> serviceConfig =
        Map.of("loadBalancingConfig", List.of(Map.of("round_robin", Map.of())));
    register(
        new FixedProvider(
            "bridgetest",
            (listener, args) ->
                listener.onResult(
                    NameResolver.ResolutionResult.newBuilder()
                        .setAddressesOrError(StatusOr.fromValue(addresses))
                        .setServiceConfig(
                            args.getServiceConfigParser().parseServiceConfig(serviceConfig))
                        .build())));
    channel =
        Grpc.newChannelBuilder("bridgetest:///greeter", InsecureChannelCredentials.create())
            .build();
    TestServiceGrpc.TestServiceBlockingStub stub = TestServiceGrpc.newBlockingStub(channel);
    // round_robin picks among the READY servers, so the first calls may all go to the server that
    // connected first; pick_first would never leave it.
    for (int i = 0; i < 200 && answered.size() < servers.size(); i++) {
      stub.emptyCall(Empty.getDefaultInstance());
    }
    assertThat(answered.keySet())
        .as("servers that answered, balanced round robin over the resolver's addresses")
        .containsExactlyInAnyOrder(servers.get(0).getPort(), servers.get(1).getPort());
  }

  @Test
  void aGrpcJavaResolversErrorFailsCallsWithItsStatus() {
    register(
        new FixedProvider(
            "bridgefail",
            (listener, args) ->
                listener.onError(Status.UNAVAILABLE.withDescription("no such service: greeter"))));
    channel =
        Grpc.newChannelBuilder("bridgefail:///greeter", InsecureChannelCredentials.create())
            .build();
    assertThatThrownBy(
            () -> TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).contains("no such service: greeter");
            });
  }

  @Test
  void ternKeepsTheSchemesItResolvesItself() {
    // A grpc-java provider for dns (as grpc-core registers) does not replace Tern's resolver.
    List<String> asked = new ArrayList<>();
    register(
        new FixedProvider(
            "dns",
            (listener, args) -> {
              asked.add("dns");
              listener.onError(Status.INTERNAL.withDescription("not Tern's dns"));
            }));
    channel =
        Grpc.newChannelBuilder(
                "dns:///127.0.0.1:" + servers.get(0).getPort(), InsecureChannelCredentials.create())
            .build();
    TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance());
    assertThat(asked).as("the grpc-java dns provider was not asked").isEmpty();
  }

  @Test
  @SuppressWarnings("deprecation") // nameResolverFactory: deprecated in grpc-java, still used
  void aChannelsNameResolverFactoryResolvesItsTargetWithTheChannelsArgs() throws Exception {
    NameResolver.Args.Key<String> tenant = NameResolver.Args.Key.create("tenant");
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", servers.get(1).getPort());
    List<URI> asked = new CopyOnWriteArrayList<>();
    // Not registered anywhere: only the builder knows it. It resolves only for the tenant arg.
    FixedProvider factory =
        new FixedProvider(
            "factorytest",
            (listener, args) -> {
              if ("blue".equals(args.getArg(tenant))) {
                listener.onResult(
                    NameResolver.ResolutionResult.newBuilder()
                        .setAddressesOrError(
                            StatusOr.fromValue(List.of(new EquivalentAddressGroup(address))))
                        .build());
              } else {
                listener.onError(Status.PERMISSION_DENIED.withDescription("tenant " + args));
              }
            },
            asked::add);
    // With the factory's scheme, and without one (grpc-java gives it the factory's default).
    for (String target : List.of("factorytest:///greeter", "greeter")) {
      ManagedChannel viaFactory =
          Grpc.newChannelBuilder(target, InsecureChannelCredentials.create())
              .nameResolverFactory(factory)
              .setNameResolverArg(tenant, "blue")
              .build();
      try {
        TestServiceGrpc.newBlockingStub(viaFactory).emptyCall(Empty.getDefaultInstance());
      } finally {
        Peers.close(viaFactory);
      }
    }
    assertThat(answered.keySet()).containsExactly(servers.get(1).getPort());
    assertThat(asked)
        .extracting(URI::toString)
        .containsExactly("factorytest:///greeter", "factorytest:///greeter");
  }

  @Test
  void aRegisteredGrpcJavaResolverGetsTheChannelsArgs() {
    NameResolver.Args.Key<Integer> shard = NameResolver.Args.Key.create("shard");
    List<Integer> shards = new CopyOnWriteArrayList<>();
    register(
        new FixedProvider(
            "bridgeargs",
            (listener, args) -> {
              shards.add(args.getArg(shard));
              listener.onError(Status.UNAVAILABLE.withDescription("shard " + args.getArg(shard)));
            }));
    channel =
        Grpc.newChannelBuilder("bridgeargs:///greeter", InsecureChannelCredentials.create())
            .setNameResolverArg(shard, 7)
            .build();
    assertThatThrownBy(
            () -> TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getDescription()).contains("shard 7"));
    assertThat(shards).contains(7);
  }

  /** What a test resolver does when started. */
  interface Resolution {
    void resolve(NameResolver.Listener2 listener, NameResolver.Args args);
  }

  /**
   * A grpc-java provider of one scheme, at the highest priority, resolving as it is told (also used
   * by {@link GrpcJavaLoadBalancerTest}).
   */
  static final class FixedProvider extends NameResolverProvider {
    private final String scheme;
    private final Resolution resolution;
    private final Consumer<URI> asked;

    FixedProvider(String scheme, Resolution resolution) {
      this(scheme, resolution, uri -> {});
    }

    /** Also tells {@code asked} each target URI it is asked to resolve. */
    FixedProvider(String scheme, Resolution resolution, Consumer<URI> asked) {
      this.scheme = scheme;
      this.resolution = resolution;
      this.asked = asked;
    }

    @Override
    protected boolean isAvailable() {
      return true;
    }

    @Override
    protected int priority() {
      return 10;
    }

    @Override
    public String getDefaultScheme() {
      return scheme;
    }

    @Override
    public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
      return List.of(InetSocketAddress.class);
    }

    @Override
    public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
      asked.accept(targetUri);
      if (!scheme.equals(targetUri.getScheme())) {
        return null;
      }
      return new NameResolver() {
        @Override
        public String getServiceAuthority() {
          return "greeter";
        }

        @Override
        public void start(Listener2 listener) {
          args.getSynchronizationContext().execute(() -> resolution.resolve(listener, args));
        }

        @Override
        public void shutdown() {}
      };
    }
  }
}
