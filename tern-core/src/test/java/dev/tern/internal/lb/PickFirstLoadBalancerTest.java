package dev.tern.internal.lb;

import static dev.tern.internal.lb.FakeLoadBalancerHelper.address;
import static dev.tern.internal.lb.FakeLoadBalancerHelper.groups;
import static dev.tern.internal.lb.FakeLoadBalancerHelper.resolved;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.ConnectivityState;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.internal.lb.FakeLoadBalancerHelper.FakeSubchannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PickFirstLoadBalancerTest {
  private static final SocketAddress A = address("a");
  private static final SocketAddress B = address("b");
  private static final SocketAddress C = address("c");
  private static final long SEED = 42;

  private final FakeLoadBalancerHelper helper = new FakeLoadBalancerHelper();
  private final PickFirstLoadBalancer balancer =
      new PickFirstLoadBalancer(helper, new Random(SEED));

  @AfterEach
  void nothingThrewInTheContext() {
    assertThat(helper.thrown).isEmpty();
  }

  private Status accept(SocketAddress... addresses) {
    return helper.call(() -> balancer.acceptResolvedAddresses(resolved(groups(addresses))));
  }

  @Test
  void connectsOnlyTheFirstAddress() {
    assertThat(accept(A, B, C).isOk()).isTrue();

    assertThat(helper.createdAddresses()).containsExactly(A);
    assertThat(helper.subchannel(A).connectionRequests).isEqualTo(1);
    assertThat(helper.states).containsExactly(ConnectivityState.CONNECTING);
    assertThat(helper.pick().hasResult()).isFalse();
  }

  @Test
  void eachSubchannelCarriesItsGroupsAttributesAndTakesNewOnesWithoutReconnecting() {
    Attributes.Key<String> zone = Attributes.Key.create("zone");
    List<EquivalentAddressGroup> first =
        List.of(
            new EquivalentAddressGroup(A, Attributes.newBuilder().set(zone, "z1").build()),
            new EquivalentAddressGroup(B, Attributes.newBuilder().set(zone, "z2").build()));
    helper.call(() -> balancer.acceptResolvedAddresses(resolved(first)));
    helper.subchannel(A).fail(Status.UNAVAILABLE.withDescription("a refused"));

    assertThat(helper.subchannel(A).getAddresses().getAttributes().get(zone)).isEqualTo("z1");
    FakeSubchannel b = helper.subchannel(B);
    assertThat(b.getAddresses().getAttributes().get(zone)).isEqualTo("z2");
    b.report(ConnectivityState.READY);

    List<EquivalentAddressGroup> moved =
        List.of(new EquivalentAddressGroup(B, Attributes.newBuilder().set(zone, "z3").build()));
    helper.call(() -> balancer.acceptResolvedAddresses(resolved(moved)));

    assertThat(b.getAddresses().getAttributes().get(zone)).isEqualTo("z3");
    assertThat(b.shutdown).as("the connected subchannel stays").isFalse();
    assertThat(helper.pickedSubchannel()).isSameAs(b);
  }

  @Test
  void happyEyeballsStartsTheNextAddressAfterExactly250Milliseconds() {
    accept(A, B, C);

    helper.clock.forwardTime(249, TimeUnit.MILLISECONDS);
    assertThat(helper.createdAddresses()).containsExactly(A);

    helper.clock.forwardTime(1, TimeUnit.MILLISECONDS);
    assertThat(helper.createdAddresses()).containsExactly(A, B);
    assertThat(helper.subchannel(B).connectionRequests).isEqualTo(1);
    assertThat(helper.subchannel(A).shutdown).isFalse(); // still racing

    helper.clock.forwardTime(250, TimeUnit.MILLISECONDS);
    assertThat(helper.createdAddresses()).containsExactly(A, B, C);
    assertThat(helper.states).containsExactly(ConnectivityState.CONNECTING);
  }

  @Test
  void aFailureStartsTheNextAddressAtOnce() {
    accept(A, B, C);

    helper.subchannel(A).fail(Status.UNAVAILABLE.withDescription("a refused"));

    assertThat(helper.createdAddresses()).containsExactly(A, B);
    assertThat(helper.state()).isEqualTo(ConnectivityState.CONNECTING);
    assertThat(helper.refreshes).isZero();
  }

  @Test
  void theFirstToBeReadyWinsAndTheOthersAreShutDown() {
    accept(A, B, C);
    helper.clock.forwardTime(250, TimeUnit.MILLISECONDS);
    FakeSubchannel a = helper.subchannel(A);
    FakeSubchannel b = helper.subchannel(B);

    b.report(ConnectivityState.READY);

    assertThat(helper.state()).isEqualTo(ConnectivityState.READY);
    assertThat(helper.pickedSubchannel()).isSameAs(b);
    assertThat(a.shutdown).isTrue();
    assertThat(b.shutdown).isFalse();
    helper.clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(helper.createdAddresses()).as("no more attempts").containsExactly(A, B);
  }

  @Test
  void allFailingIsTransientFailureWithTheLastErrorAndAsksForReResolution() {
    accept(A, B, C);

    helper.subchannel(A).fail(Status.UNAVAILABLE.withDescription("a refused"));
    helper.subchannel(B).fail(Status.UNAVAILABLE.withDescription("b refused"));
    assertThat(helper.state()).isEqualTo(ConnectivityState.CONNECTING);
    helper.subchannel(C).fail(Status.UNAVAILABLE.withDescription("c refused"));

    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    PickResult pick = helper.pick();
    assertThat(pick.isDrop()).isFalse();
    assertThat(pick.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(pick.getStatus().getDescription()).isEqualTo("c refused");
    assertThat(helper.refreshes).isEqualTo(1);
  }

  @Test
  void transientFailureIsStickyAndRecoveredSubchannelsConnectAgain() {
    accept(A, B);
    helper.subchannel(A).fail(Status.UNAVAILABLE.withDescription("a refused"));
    helper.subchannel(B).fail(Status.UNAVAILABLE.withDescription("b refused"));
    int published = helper.states.size();

    // B's back-off is over: it is asked to connect again, and the channel stays failed meanwhile.
    helper.subchannel(B).report(ConnectivityState.IDLE);
    assertThat(helper.subchannel(B).connectionRequests).isEqualTo(2);
    helper.subchannel(B).report(ConnectivityState.CONNECTING);
    assertThat(helper.states.subList(published, helper.states.size()))
        .doesNotContain(ConnectivityState.CONNECTING, ConnectivityState.IDLE);
    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);

    helper.subchannel(B).fail(Status.UNAVAILABLE.withDescription("b refused again"));
    assertThat(helper.pick().getStatus().getDescription()).isEqualTo("b refused again");

    helper.subchannel(A).report(ConnectivityState.IDLE);
    helper.subchannel(A).report(ConnectivityState.CONNECTING);
    helper.subchannel(A).report(ConnectivityState.READY);
    assertThat(helper.state()).isEqualTo(ConnectivityState.READY);
    assertThat(helper.pickedSubchannel()).isSameAs(helper.subchannel(A));
    assertThat(helper.subchannel(B).shutdown).isTrue();
  }

  @Test
  void aSubchannelWhoseBackoffEndedBeforeThePassFailedIsAskedToConnectAgain() {
    accept(A, B);
    helper.subchannel(A).fail(Status.UNAVAILABLE.withDescription("a refused"));
    helper.subchannel(A).report(ConnectivityState.IDLE); // A's back-off ends while B still tries

    helper.subchannel(B).fail(Status.UNAVAILABLE.withDescription("b refused"));

    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.subchannel(A).connectionRequests).isEqualTo(2);
  }

  @Test
  void stickyTransientFailureAsksForReResolutionOncePerRoundOfFailures() {
    accept(A, B);
    helper.subchannel(A).fail(Status.UNAVAILABLE);
    helper.subchannel(B).fail(Status.UNAVAILABLE);
    assertThat(helper.refreshes).isEqualTo(1);

    for (int round = 2; round <= 3; round++) {
      for (SocketAddress address : List.of(A, B)) {
        helper.subchannel(address).report(ConnectivityState.IDLE);
        helper.subchannel(address).report(ConnectivityState.CONNECTING);
        helper.subchannel(address).fail(Status.UNAVAILABLE);
      }
      assertThat(helper.refreshes).as("after round " + round).isEqualTo(round);
    }
  }

  @Test
  void lostConnectionMakesItIdleUntilAPickAsksForOne() {
    accept(A, B);
    FakeSubchannel a = helper.subchannel(A);
    a.report(ConnectivityState.READY);

    a.report(ConnectivityState.IDLE);

    assertThat(helper.state()).isEqualTo(ConnectivityState.IDLE);
    assertThat(helper.refreshes).isEqualTo(1);
    assertThat(a.connectionRequests).isEqualTo(1);

    assertThat(helper.pick().hasResult()).isFalse();
    assertThat(a.connectionRequests).isEqualTo(2);
    assertThat(helper.state()).isEqualTo(ConnectivityState.CONNECTING);
    helper.pick();
    assertThat(a.connectionRequests).as("one request per picker").isEqualTo(2);

    a.report(ConnectivityState.CONNECTING);
    a.report(ConnectivityState.READY);
    assertThat(helper.pickedSubchannel()).isSameAs(a);
  }

  @Test
  void newAddressesThatKeepTheConnectedOneKeepTheConnection() {
    accept(A, B);
    FakeSubchannel a = helper.subchannel(A);
    a.report(ConnectivityState.READY);
    int published = helper.states.size();

    accept(C, A);

    assertThat(a.shutdown).isFalse();
    assertThat(helper.createdAddresses()).containsExactly(A);
    assertThat(helper.states).hasSize(published);
    assertThat(helper.pickedSubchannel()).isSameAs(a);
  }

  @Test
  void newAddressesWithoutTheConnectedOneConnectToTheNewList() {
    accept(A);
    FakeSubchannel a = helper.subchannel(A);
    a.report(ConnectivityState.READY);

    accept(B, C);

    assertThat(a.shutdown).isTrue();
    assertThat(helper.state()).isEqualTo(ConnectivityState.CONNECTING);
    assertThat(helper.createdAddresses()).containsExactly(A, B);
    assertThat(helper.subchannel(B).connectionRequests).isEqualTo(1);
  }

  @Test
  void emptyAddressListIsUnavailableAndFailsCalls() {
    Status status = accept();

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("no addresses").contains("fake-target");
    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus()).isSameAs(status);
    assertThat(helper.subchannels).isEmpty();
  }

  @Test
  void resolutionErrorKeepsAWorkingConnectionAndOtherwiseFailsCalls() {
    accept(A);
    Status dnsDown = Status.UNAVAILABLE.withDescription("dns down");

    helper.run(() -> balancer.handleNameResolutionError(dnsDown));
    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus()).isSameAs(dnsDown);
    assertThat(helper.subchannel(A).shutdown).isTrue();

    accept(B);
    helper.subchannel(B).report(ConnectivityState.READY);
    helper.run(() -> balancer.handleNameResolutionError(dnsDown));
    assertThat(helper.state()).isEqualTo(ConnectivityState.READY);
    assertThat(helper.pickedSubchannel()).isSameAs(helper.subchannel(B));
  }

  @Test
  void shutdownShutsEverySubchannelDownAndCancelsTheTimer() {
    accept(A, B, C);
    helper.clock.forwardTime(250, TimeUnit.MILLISECONDS);

    helper.run(balancer::shutdown);

    assertThat(helper.subchannels).allMatch(s -> s.shutdown);
    assertThat(helper.clock.numPendingTasks()).isZero();
  }

  @Test
  void ipv6AndIpv4AddressesAreTriedAlternatelyStartingWithTheFirstFamily() throws Exception {
    SocketAddress v4a = inet("10.0.0.1");
    SocketAddress v4b = inet("10.0.0.2");
    SocketAddress v4c = inet("10.0.0.3");
    SocketAddress v6a = inet("2001:db8::1");
    SocketAddress v6b = inet("2001:db8::2");

    accept(v4a, v4b, v4c, v6a, v6b);
    failEachInTurn(5);

    assertThat(helper.createdAddresses()).containsExactly(v4a, v6a, v4b, v6b, v4c);
  }

  @Test
  void addressesOfEveryGroupAreFlattenedWithoutDuplicates() {
    EquivalentAddressGroup ab = new EquivalentAddressGroup(List.of(A, B));
    EquivalentAddressGroup bc = new EquivalentAddressGroup(List.of(B, C));

    helper.run(() -> balancer.acceptResolvedAddresses(resolved(List.of(ab, bc))));
    failEachInTurn(3);

    assertThat(helper.createdAddresses()).containsExactly(A, B, C);
    assertThat(helper.subchannels).allMatch(s -> s.getAllAddresses().size() == 1);
  }

  @Test
  void shuffleConfigShufflesTheAddressesWithTheBalancersRandom() {
    List<SocketAddress> addresses = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      addresses.add(address("host" + i));
    }
    List<SocketAddress> expected = new ArrayList<>(addresses);
    Collections.shuffle(expected, new Random(SEED));
    assertThat(expected).as("the seed reorders").isNotEqualTo(addresses);
    Object config =
        new PickFirstLoadBalancerProvider()
            .parseLoadBalancingPolicyConfig(Map.of("shuffleAddressList", true))
            .getConfig();

    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                resolved(groups(addresses.toArray(new SocketAddress[0]))).toBuilder()
                    .setLoadBalancingPolicyConfig(config)
                    .build()));
    failEachInTurn(addresses.size());

    assertThat(helper.createdAddresses()).containsExactlyElementsOf(expected);
  }

  @Test
  void shuffleMovesWholeServersAndKeepsEachServersAddressOrder() {
    List<EquivalentAddressGroup> servers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      servers.add(
          new EquivalentAddressGroup(
              List.of(address("s" + i + "-first"), address("s" + i + "-second"))));
    }
    List<EquivalentAddressGroup> shuffled = new ArrayList<>(servers);
    Collections.shuffle(shuffled, new Random(SEED));
    assertThat(shuffled).as("the seed reorders").isNotEqualTo(servers);
    List<SocketAddress> expected = new ArrayList<>();
    for (EquivalentAddressGroup server : shuffled) {
      expected.addAll(server.getAddresses());
    }
    Object config =
        new PickFirstLoadBalancerProvider()
            .parseLoadBalancingPolicyConfig(Map.of("shuffleAddressList", true))
            .getConfig();

    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                resolved(servers).toBuilder().setLoadBalancingPolicyConfig(config).build()));
    failEachInTurn(expected.size());

    assertThat(helper.createdAddresses()).containsExactlyElementsOf(expected);
  }

  @Test
  void providerParsesTheShuffleFlagAndNamesWhatIsWrong() {
    PickFirstLoadBalancerProvider provider = new PickFirstLoadBalancerProvider();

    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of()).getConfig())
        .isEqualTo(new PickFirstConfig(false));
    assertThat(provider.parseLoadBalancingPolicyConfig(null).getConfig())
        .isEqualTo(new PickFirstConfig(false));
    assertThat(
            provider
                .parseLoadBalancingPolicyConfig(Map.of("shuffleAddressList", false))
                .getConfig())
        .isEqualTo(new PickFirstConfig(false));
    assertThat(
            provider.parseLoadBalancingPolicyConfig(Map.of("shuffleAddressList", true)).getConfig())
        .isEqualTo(new PickFirstConfig(true));

    ConfigOrError notBoolean =
        provider.parseLoadBalancingPolicyConfig(Map.of("shuffleAddressList", "yes"));
    assertThat(notBoolean.getError().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(notBoolean.getError().getDescription()).contains("shuffleAddressList", "yes");

    Map<String, Object> unknown = new HashMap<>();
    unknown.put("shuffle", true);
    // Fields it does not know are ignored, so a config written for a newer client still works.
    ConfigOrError unknownField = provider.parseLoadBalancingPolicyConfig(unknown);
    assertThat(unknownField.getError()).isNull();
    assertThat(unknownField.getConfig()).isEqualTo(new PickFirstConfig(false));
  }

  @Test
  void providerNamesThePolicy() {
    PickFirstLoadBalancerProvider provider = new PickFirstLoadBalancerProvider();

    assertThat(provider.getPolicyName()).isEqualTo("pick_first");
    assertThat(provider.isAvailable()).isTrue();
  }

  /** Fails the newest subchannel {@code count} times, so the pass moves on each time. */
  private void failEachInTurn(int count) {
    for (int i = 0; i < count; i++) {
      FakeSubchannel newest = helper.subchannels.get(helper.subchannels.size() - 1);
      newest.fail(Status.UNAVAILABLE.withDescription("refused " + i));
    }
  }

  private static SocketAddress inet(String literal) throws Exception {
    return new InetSocketAddress(InetAddress.getByName(literal), 443);
  }
}
