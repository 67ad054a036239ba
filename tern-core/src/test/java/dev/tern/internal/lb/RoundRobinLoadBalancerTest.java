package dev.tern.internal.lb;

import static dev.tern.internal.lb.FakeLoadBalancerHelper.address;
import static dev.tern.internal.lb.FakeLoadBalancerHelper.groups;
import static dev.tern.internal.lb.FakeLoadBalancerHelper.resolved;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.ConnectivityState;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer.Subchannel;
import dev.tern.Status;
import dev.tern.internal.lb.FakeLoadBalancerHelper.FakeSubchannel;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RoundRobinLoadBalancerTest {
  private static final SocketAddress A = address("a");
  private static final SocketAddress B = address("b");
  private static final SocketAddress C = address("c");
  private static final SocketAddress D = address("d");

  private final FakeLoadBalancerHelper helper = new FakeLoadBalancerHelper();
  private final RoundRobinLoadBalancer balancer = new RoundRobinLoadBalancer(helper, new Random(7));

  @AfterEach
  void nothingThrewInTheContext() {
    assertThat(helper.thrown).isEmpty();
  }

  private Status accept(SocketAddress... addresses) {
    return helper.call(() -> balancer.acceptResolvedAddresses(resolved(groups(addresses))));
  }

  private void ready(SocketAddress... addresses) {
    for (SocketAddress address : addresses) {
      helper.subchannel(address).report(ConnectivityState.CONNECTING);
      helper.subchannel(address).report(ConnectivityState.READY);
    }
  }

  /** How often each subchannel is picked in {@code picks} picks. */
  private Map<Subchannel, Integer> countPicks(int picks) {
    Map<Subchannel, Integer> counts = new HashMap<>();
    for (int i = 0; i < picks; i++) {
      counts.merge(helper.pickedSubchannel(), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void connectsToEveryEndpointAtOnce() {
    accept(A, B, C);

    assertThat(helper.createdAddresses()).containsExactly(A, B, C);
    assertThat(helper.subchannels).allMatch(s -> s.isStarted() && s.connectionRequests == 1);
    assertThat(helper.states).containsExactly(ConnectivityState.CONNECTING);
    assertThat(helper.pick().hasResult()).isFalse();
  }

  @Test
  void picksCycleOverTheReadyEndpointsEvenly() {
    accept(A, B, C);
    ready(A, B, C);

    assertThat(helper.state()).isEqualTo(ConnectivityState.READY);
    assertThat(countPicks(3000))
        .containsOnlyKeys(helper.subchannel(A), helper.subchannel(B), helper.subchannel(C))
        .allSatisfy((subchannel, count) -> assertThat(count).isEqualTo(1000));
    for (int i = 0; i < 10; i++) {
      assertThat(new HashSet<>(List.of(pickOnce(), pickOnce(), pickOnce()))).hasSize(3);
    }
  }

  private Subchannel pickOnce() {
    return helper.pickedSubchannel();
  }

  @Test
  void anEndpointThatIsNotReadyIsSkipped() {
    accept(A, B, C);
    ready(A, C);

    assertThat(countPicks(1000))
        .containsOnlyKeys(helper.subchannel(A), helper.subchannel(C))
        .allSatisfy((subchannel, count) -> assertThat(count).isEqualTo(500));
  }

  @Test
  void aFailedEndpointReconnectsWhenItsBackoffEndsAndReResolutionIsAsked() {
    accept(A, B);
    ready(A);
    FakeSubchannel b = helper.subchannel(B);

    b.fail(Status.UNAVAILABLE.withDescription("b refused"));
    assertThat(helper.refreshes).isEqualTo(1);
    assertThat(b.connectionRequests).isEqualTo(1);

    b.report(ConnectivityState.IDLE);
    assertThat(b.connectionRequests).isEqualTo(2);
    assertThat(helper.refreshes).isEqualTo(1);
    assertThat(helper.state()).isEqualTo(ConnectivityState.READY);
  }

  @Test
  void aLostConnectionReconnectsAtOnceAndLeavesThePicks() {
    accept(A, B);
    ready(A, B);
    FakeSubchannel a = helper.subchannel(A);

    a.report(ConnectivityState.IDLE);

    assertThat(helper.refreshes).isEqualTo(1);
    assertThat(a.connectionRequests).isEqualTo(2);
    assertThat(countPicks(10)).containsOnlyKeys(helper.subchannel(B));
  }

  @Test
  void stateIsReadyIfAnyIsElseConnectingIfAnyIsElseTransientFailure() {
    accept(A, B, C);
    assertThat(helper.state()).isEqualTo(ConnectivityState.CONNECTING);

    helper.subchannel(A).fail(Status.UNAVAILABLE.withDescription("a refused"));
    helper.subchannel(B).fail(Status.UNAVAILABLE.withDescription("b refused"));
    assertThat(helper.state()).isEqualTo(ConnectivityState.CONNECTING);

    helper.subchannel(C).fail(Status.UNAVAILABLE.withDescription("c refused"));
    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus().getDescription()).isEqualTo("c refused");

    // A failed endpoint that tries again does not make the channel CONNECTING (no flapping).
    helper.subchannel(B).report(ConnectivityState.IDLE);
    helper.subchannel(B).report(ConnectivityState.CONNECTING);
    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);

    helper.subchannel(B).report(ConnectivityState.READY);
    assertThat(helper.state()).isEqualTo(ConnectivityState.READY);
    assertThat(countPicks(5)).containsOnlyKeys(helper.subchannel(B));
  }

  @Test
  void newAddressesShutRemovedEndpointsDownAndKeepTheOthers() {
    accept(A, B, C);
    ready(A, B, C);
    FakeSubchannel a = helper.subchannel(A);
    FakeSubchannel b = helper.subchannel(B);
    FakeSubchannel c = helper.subchannel(C);

    accept(B, C, D);

    assertThat(a.shutdown).isTrue();
    assertThat(helper.createdAddresses()).containsExactly(A, B, C, D);
    assertThat(helper.subchannel(B)).isSameAs(b);
    assertThat(b.shutdown || c.shutdown).isFalse();
    assertThat(b.connectionRequests).isEqualTo(1);
    assertThat(helper.subchannel(D).connectionRequests).isEqualTo(1);
    assertThat(countPicks(10)).containsOnlyKeys(b, c);

    ready(D);
    assertThat(countPicks(300))
        .containsOnlyKeys(b, c, helper.subchannel(D))
        .allSatisfy((subchannel, count) -> assertThat(count).isEqualTo(100));
  }

  @Test
  void anEndpointKeepsAllItsAddressesAndAttributesInOneSubchannel() {
    Attributes.Key<String> zone = Attributes.Key.create("zone");
    EquivalentAddressGroup both =
        new EquivalentAddressGroup(List.of(A, B), Attributes.newBuilder().set(zone, "z1").build());

    helper.run(() -> balancer.acceptResolvedAddresses(resolved(List.of(both))));

    assertThat(helper.subchannels).hasSize(1);
    assertThat(helper.subchannels.get(0).getAllAddresses()).containsExactly(both);
    assertThat(helper.subchannels.get(0).getAttributes().get(zone)).isEqualTo("z1");
  }

  @Test
  void emptyAddressListIsUnavailable() {
    Status status = accept();

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("no addresses").contains("fake-target");
    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus()).isSameAs(status);
  }

  @Test
  void resolutionErrorKeepsReadyEndpointsAndOtherwiseFailsCalls() {
    Status dnsDown = Status.UNAVAILABLE.withDescription("dns down");
    helper.run(() -> balancer.handleNameResolutionError(dnsDown));
    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.pick().getStatus()).isSameAs(dnsDown);

    accept(A, B);
    ready(A);
    helper.run(() -> balancer.handleNameResolutionError(dnsDown));
    assertThat(helper.state()).isEqualTo(ConnectivityState.READY);

    helper.subchannel(A).report(ConnectivityState.IDLE);
    helper.subchannel(A).fail(Status.UNAVAILABLE.withDescription("a refused"));
    helper.subchannel(B).fail(Status.UNAVAILABLE.withDescription("b refused"));
    helper.run(() -> balancer.handleNameResolutionError(dnsDown));
    assertThat(helper.pick().getStatus()).isSameAs(dnsDown);
  }

  @Test
  void shutdownShutsEverySubchannelDown() {
    accept(A, B, C);

    helper.run(balancer::shutdown);

    assertThat(helper.subchannels).allMatch(s -> s.shutdown);
  }

  @Test
  void eachNewPickerStartsAtARandomEndpointSoClientsSpreadOut() {
    accept(A, B, C);
    ready(A, B, C);
    List<Subchannel> firsts = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      helper.subchannel(A).report(ConnectivityState.IDLE);
      ready(A); // the READY set changed twice: a new picker
      firsts.add(helper.pickedSubchannel());
    }

    assertThat(new HashSet<>(firsts)).hasSizeGreaterThan(1);
  }
}
