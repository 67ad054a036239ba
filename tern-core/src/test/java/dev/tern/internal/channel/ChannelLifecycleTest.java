package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.UNARY;
import static dev.tern.internal.channel.ClientTestSupport.headers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.LoadBalancerRegistry;
import dev.tern.Status;
import dev.tern.internal.LogCapture;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The channel's resolver -> balancer -> subchannels machinery, driven through {@link
 * ManagedChannelImpl} with a fake resolver the test feeds and fake transports.
 */
class ChannelLifecycleTest {
  private static final SocketAddress A = InetSocketAddress.createUnresolved("a.example", 443);
  private static final SocketAddress B = InetSocketAddress.createUnresolved("b.example", 443);
  private static final SocketAddress C = InetSocketAddress.createUnresolved("c.example", 443);
  private static final CallOptions WAIT_FOR_READY = CallOptions.DEFAULT.withWaitForReady();

  private final ChannelFixture fixture = new ChannelFixture();

  ChannelLifecycleTest() {
    fixture.useFakeResolvers();
  }

  @AfterEach
  void shutDownChannel() {
    if (fixture.channel != null) {
      fixture.channel.shutdownNow();
    }
  }

  private RecordingListener start(CallOptions options, String marker) {
    RecordingListener listener = new RecordingListener();
    ClientCall<String, String> call = fixture.channel.newCall(UNARY, options);
    call.start(listener, headers(marker));
    call.request(1);
    return listener;
  }

  @Test
  void unknownDefaultPolicyFailsCallsNamingItAndTheRegisteredOnes() throws Exception {
    fixture.loadBalancingPolicy = "no_such_policy";
    fixture.build();
    RecordingListener call = start(CallOptions.DEFAULT, "x");

    fixture.resolver().resolve(A);

    assertThat(call.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(call.status.getDescription())
        .contains("'no_such_policy'")
        .contains("[least_request, pick_first, round_robin]");
    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(fixture.factory.transportCount()).isZero();
    // No policy will appear: wait-for-ready calls fail too instead of waiting for their deadline.
    RecordingListener waiting = start(WAIT_FOR_READY, "wfr");
    assertThat(waiting.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(waiting.status.getDescription()).contains("'no_such_policy'");

    fixture.channel.shutdown();
    assertThat(fixture.channel.awaitTermination(0, TimeUnit.SECONDS)).isTrue();
    assertThat(fixture.resolver().shutdown).isTrue();
  }

  @Test
  void emptyAddressListFailsFailFastCallsAndResolvesAgainAfterTheBackoff() {
    fixture.build();
    RecordingListener failFast = start(CallOptions.DEFAULT, "fail-fast");
    RecordingListener waiting = start(WAIT_FOR_READY, "waiting");

    fixture.resolver().resolve();

    assertThat(failFast.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failFast.status.getDescription())
        .isEqualTo("name resolver returned no addresses for 'test-target'");
    assertThat(waiting.isClosed()).isFalse();
    fixture.clock.forwardNanos(TimeUnit.SECONDS.toNanos(1) - 1);
    assertThat(fixture.resolver().refreshes).isZero();
    fixture.clock.forwardNanos(1);
    assertThat(fixture.resolver().refreshes).isEqualTo(1);

    fixture.resolver().resolve(A);
    FakeClientTransport transport = fixture.readyTransport();
    transport.lastStream().serverClose(Status.OK);
    assertThat(waiting.events()).containsExactly("close OK");
  }

  @Test
  void resolverErrorFailsFailFastCallsAndTheNextResultServesWaitingOnes() {
    fixture.build();
    RecordingListener failFast = start(CallOptions.DEFAULT, "fail-fast");
    RecordingListener waiting = start(WAIT_FOR_READY, "waiting");
    Status dnsDown = Status.UNAVAILABLE.withDescription("dns down");

    fixture.resolver().fail(dnsDown);

    assertThat(failFast.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failFast.status.getDescription()).isEqualTo("dns down");
    assertThat(start(CallOptions.DEFAULT, "later").status.getDescription()).isEqualTo("dns down");
    assertThat(waiting.isClosed()).isFalse();
    fixture.clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(fixture.resolver().refreshes).isEqualTo(1);

    fixture.resolver().resolve(A);
    FakeClientTransport transport = fixture.readyTransport();
    assertThat(transport.lastStream().headers.get(ClientTestSupport.CUSTOM)).isEqualTo("waiting");
  }

  @Test
  void resolverWhoseStartThrowsFailsEveryCallWithInternal() throws Exception {
    fixture.resolverStartFailure = new IllegalStateException("resolver start exploded");
    fixture.build();

    try (LogCapture logs = new LogCapture(ChannelLifecycle.class)) {
      RecordingListener failFast = start(CallOptions.DEFAULT, "fail-fast");
      RecordingListener waiting = start(WAIT_FOR_READY, "waiting");

      for (RecordingListener call : List.of(failFast, waiting)) {
        assertThat(call.status.getCode()).isEqualTo(Status.Code.INTERNAL);
        assertThat(call.status.getDescription())
            .contains("its name resolver (" + FakeNameResolver.class.getName() + ") threw")
            .contains("resolver start exploded");
      }
      assertThat(logs.records).hasSize(1);
      assertThat(logs.records.get(0).getLevel()).isEqualTo(Level.SEVERE);
      assertThat(logs.records.get(0).getThrown()).isSameAs(fixture.resolverStartFailure);
    }
    assertThat(fixture.channel.getState(true)).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);

    fixture.channel.shutdown();
    assertThat(fixture.channel.awaitTermination(0, TimeUnit.SECONDS)).isTrue();
    assertThat(fixture.factory.isClosed()).isTrue();
  }

  @Test
  void balancerThatThrowsFailsEveryCallWithInternalAndItsSubchannelsShutDown() throws Exception {
    LoadBalancerRegistry registry = new LoadBalancerRegistry();
    registry.register(new ExplodingBalancerProvider());
    fixture.loadBalancerRegistry = registry;
    fixture.loadBalancingPolicy = "exploding";
    fixture.build();

    try (LogCapture logs = new LogCapture(ChannelLifecycle.class)) {
      RecordingListener waiting = start(WAIT_FOR_READY, "waiting");
      fixture.resolver().resolve(A);

      assertThat(waiting.status.getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(waiting.status.getDescription())
          .contains("its load balancer (exploding) threw")
          .contains("balancer exploded");
      assertThat(logs.records).hasSize(1);
    }
    assertThat(fixture.factory.transportCount()).isEqualTo(1);
    assertThat(fixture.factory.last().isShutdown()).isTrue();
    assertThat(start(WAIT_FOR_READY, "later").status.getCode()).isEqualTo(Status.Code.INTERNAL);

    fixture.channel.shutdown();
    assertThat(fixture.channel.awaitTermination(0, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void pickFirstStartsTheNextServerAfter250MillisecondsAndKeepsTheFirstThatIsReady() {
    fixture.build();
    RecordingListener call = start(CallOptions.DEFAULT, "x");
    fixture.resolver().resolve(A, B);
    assertThat(fixture.factory.transportCount()).isEqualTo(1);
    assertThat(fixture.factory.transport(0).address).isEqualTo(A);

    fixture.clock.forwardTime(249, TimeUnit.MILLISECONDS);
    assertThat(fixture.factory.transportCount()).isEqualTo(1);
    fixture.clock.forwardTime(1, TimeUnit.MILLISECONDS);
    assertThat(fixture.factory.transportCount()).isEqualTo(2);
    FakeClientTransport second = fixture.factory.transport(1);
    assertThat(second.address).isEqualTo(B);

    second.ready();

    assertThat(fixture.factory.transport(0).isShutdown()).isTrue();
    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.READY);
    second.lastStream().serverClose(Status.OK);
    assertThat(call.events()).containsExactly("close OK");
  }

  @Test
  void roundRobinSpreadsCallsEvenlyOverThreeServers() {
    fixture.loadBalancingPolicy = "round_robin";
    fixture.build();
    fixture.channel.getState(true);
    fixture.resolver().resolve(A, B, C);
    assertThat(fixture.factory.transportCount()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      fixture.factory.transport(i).ready();
    }

    for (int i = 0; i < 300; i++) {
      start(CallOptions.DEFAULT, "call " + i);
    }

    Map<SocketAddress, Integer> streams = new HashMap<>();
    for (int i = 0; i < 3; i++) {
      FakeClientTransport transport = fixture.factory.transport(i);
      streams.put(transport.address, transport.streamCount());
    }
    assertThat(streams).containsOnlyKeys(A, B, C).containsValues(100, 100, 100);
  }

  @Test
  void idleTimeoutDropsTheResolverAndEverySubchannelAndTheNextCallStartsAfresh() {
    fixture.loadBalancingPolicy = "round_robin";
    fixture.idleTimeoutNanos = TimeUnit.SECONDS.toNanos(10);
    fixture.build();
    fixture.channel.getState(true);
    FakeNameResolver first = fixture.resolver();
    first.resolve(A, B);
    fixture.factory.transport(0).ready();
    fixture.factory.transport(1).ready();

    fixture.clock.forwardTime(10, TimeUnit.SECONDS);

    assertThat(fixture.channel.getState(false)).isEqualTo(ConnectivityState.IDLE);
    assertThat(first.shutdown).isTrue();
    for (int i = 0; i < 2; i++) {
      assertThat(fixture.factory.transport(i).shutdownStatus().getDescription())
          .isEqualTo("Channel entering idle mode");
    }
    first.resolve(C); // too late: the channel no longer listens to it
    assertThat(fixture.factory.transportCount()).isEqualTo(2);

    RecordingListener call = start(CallOptions.DEFAULT, "after idle");
    assertThat(fixture.resolvers).hasSize(2);
    assertThat(fixture.resolver().isStarted()).isTrue();
    fixture.resolver().resolve(A, B);
    assertThat(fixture.factory.transportCount()).isEqualTo(4);
    fixture.factory.transport(3).ready();
    fixture.factory.transport(3).lastStream().serverClose(Status.OK);
    assertThat(call.events()).containsExactly("close OK");
  }

  @Test
  void stateAndStateCallbacksFollowTheBalancer() {
    fixture.loadBalancingPolicy = "round_robin";
    fixture.build();
    ManagedChannelImpl channel = fixture.channel;
    List<ConnectivityState> seen = new ArrayList<>();
    channel.notifyWhenStateChanged(
        ConnectivityState.IDLE,
        new Runnable() {
          @Override
          public void run() {
            ConnectivityState now = channel.getState(false);
            seen.add(now);
            channel.notifyWhenStateChanged(now, this);
          }
        });

    channel.getState(true);
    fixture.resolver().resolve(A, B);
    fixture.factory.transport(0).failToConnect(Status.UNAVAILABLE.withDescription("a refused"));
    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.CONNECTING);
    fixture.factory.transport(1).failToConnect(Status.UNAVAILABLE.withDescription("b refused"));
    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(fixture.resolver().refreshes).as("each failure asks for re-resolution").isEqualTo(2);

    fixture.clock.forwardTime(1, TimeUnit.SECONDS); // both back-offs end: both reconnect
    assertThat(fixture.factory.transportCount()).isEqualTo(4);
    fixture.factory.transport(3).ready();

    assertThat(seen)
        .containsExactly(
            ConnectivityState.CONNECTING,
            ConnectivityState.TRANSIENT_FAILURE,
            ConnectivityState.READY);
  }

  @Test
  void resetConnectBackoffRetriesAFailedResolutionAtOnce() {
    fixture.build();
    start(WAIT_FOR_READY, "waiting");
    fixture.resolver().fail(Status.UNAVAILABLE.withDescription("dns down"));
    assertThat(fixture.resolver().refreshes).isZero();

    fixture.channel.resetConnectBackoff();

    assertThat(fixture.resolver().refreshes).isEqualTo(1);
    fixture.clock.forwardTime(1, TimeUnit.MINUTES);
    assertThat(fixture.resolver().refreshes).as("the scheduled retry was dropped").isEqualTo(1);
  }

  @Test
  void resetConnectBackoffReconnectsEverySubchannelAtOnce() {
    fixture.loadBalancingPolicy = "round_robin";
    fixture.build();
    fixture.channel.getState(true);
    fixture.resolver().resolve(A, B);
    fixture.factory.transport(0).failToConnect(Status.UNAVAILABLE);
    fixture.factory.transport(1).failToConnect(Status.UNAVAILABLE);

    fixture.channel.resetConnectBackoff();

    assertThat(fixture.factory.transportCount()).isEqualTo(4);
    assertThat(List.of(fixture.factory.transport(2).address, fixture.factory.transport(3).address))
        .containsExactlyInAnyOrder(A, B);
  }

  @Test
  void balancerResettingTheBackoffReconnectsFailedSubchannelsAtOnce_notTheResolver() {
    HelperExposingProvider provider = new HelperExposingProvider();
    LoadBalancerRegistry registry = new LoadBalancerRegistry();
    registry.register(provider);
    fixture.loadBalancerRegistry = registry;
    fixture.loadBalancingPolicy = provider.getPolicyName();
    fixture.build();
    fixture.channel.getState(true);
    fixture.resolver().resolve(A, B);
    fixture.factory.transport(0).failToConnect(Status.UNAVAILABLE);
    fixture.factory.transport(1).failToConnect(Status.UNAVAILABLE);
    int refreshes = fixture.resolver().refreshes;

    provider.helper.resetConnectBackoff(); // what a balancer does when new TLS settings arrive

    assertThat(fixture.factory.transportCount()).isEqualTo(4);
    assertThat(List.of(fixture.factory.transport(2).address, fixture.factory.transport(3).address))
        .containsExactlyInAnyOrder(A, B);
    assertThat(fixture.resolver().refreshes).isEqualTo(refreshes);
  }

  /** A test policy, always available, by its name (also used by other tests of the package). */
  abstract static class TestPolicyProvider extends LoadBalancerProvider {
    private final String name;

    TestPolicyProvider(String name) {
      this.name = name;
    }

    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public int getPriority() {
      return 5;
    }

    @Override
    public String getPolicyName() {
      return name;
    }
  }

  /** round_robin, keeping the helper the channel gave it. */
  private static final class HelperExposingProvider extends TestPolicyProvider {
    LoadBalancer.Helper helper;

    HelperExposingProvider() {
      super("round_robin_exposing_its_helper");
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper channelHelper) {
      helper = channelHelper;
      return LoadBalancerRegistry.getDefaultRegistry()
          .getProvider("round_robin")
          .newLoadBalancer(channelHelper);
    }
  }

  /** A policy whose balancer connects a subchannel, then throws on its first addresses. */
  private static final class ExplodingBalancerProvider extends TestPolicyProvider {
    ExplodingBalancerProvider() {
      super("exploding");
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new LoadBalancer() {
        @Override
        public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
          Subchannel subchannel =
              helper.createSubchannel(
                  CreateSubchannelArgs.newBuilder().setAddresses(resolved.getAddresses()).build());
          subchannel.start(state -> {});
          subchannel.requestConnection();
          throw new IllegalStateException("balancer exploded");
        }

        @Override
        public void handleNameResolutionError(Status error) {}

        @Override
        public void shutdown() {}
      };
    }
  }
}
