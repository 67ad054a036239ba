package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ConnectivityState;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.xds.internal.XdsAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RingHashBalancerTest {
  private final RecordingHelper helper = new RecordingHelper();
  private final RingHashBalancer balancer = new RingHashBalancer(helper);

  private static ConfigOrError parse(String json) {
    return new RingHashProvider(true)
        .parseLoadBalancingPolicyConfig(dev.tern.internal.config.JsonParser.parseObject(json));
  }

  private static EquivalentAddressGroup endpoint(int port, int weight) {
    return new EquivalentAddressGroup(
        List.of(RecordingHelper.address(port)),
        Attributes.newBuilder().set(AddressPath.ENDPOINT_WEIGHT, weight).build());
  }

  private void accept(List<EquivalentAddressGroup> endpoints) {
    accept(endpoints, "{\"minRingSize\": 64, \"maxRingSize\": 1024}");
  }

  private void accept(List<EquivalentAddressGroup> endpoints, String json) {
    Object config = parse(json).getConfig();
    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                LoadBalancer.ResolvedAddresses.newBuilder()
                    .setAddresses(endpoints)
                    .setLoadBalancingPolicyConfig(config)
                    .build()));
  }

  private void acceptThree() {
    accept(List.of(endpoint(1001, 1), endpoint(1002, 1), endpoint(1003, 1)));
  }

  private LoadBalancer.PickResult pick(long hash) {
    return helper.pick(CallOptions.DEFAULT.withOption(XdsAttributes.RPC_HASH, hash));
  }

  private void allReady() {
    helper.run(() -> helper.subchannels.forEach(s -> s.setState(ConnectivityState.READY)));
  }

  @Test
  void subchannelsStayIdleUntilAPickLandsOnThem() {
    acceptThree();
    assertThat(helper.subchannels).hasSize(3);
    assertThat(helper.subchannels).allMatch(s -> s.connectionRequests == 0);
    assertThat(helper.state).isEqualTo(ConnectivityState.IDLE);

    LoadBalancer.PickResult queued = pick(42);
    assertThat(queued.hasResult()).isFalse();
    assertThat(helper.subchannels.stream().mapToInt(s -> s.connectionRequests).sum()).isOne();
    RecordingHelper.FakeSubchannel target =
        helper.subchannels.stream().filter(s -> s.connectionRequests == 1).findFirst().get();

    helper.run(() -> target.setState(ConnectivityState.CONNECTING));
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING);
    assertThat(pick(42).hasResult()).isFalse();
    helper.run(() -> target.setState(ConnectivityState.READY));
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    assertThat(pick(42).getSubchannel()).isSameAs(target);
  }

  @Test
  void theSameHashAlwaysPicksTheSameEndpointAndHashesSpreadOverAll() {
    acceptThree();
    allReady();
    Map<Object, Integer> counts = new HashMap<>();
    for (long i = 0; i < 3000; i++) {
      long hash = i * 0x9E3779B97F4A7C15L;
      LoadBalancer.Subchannel picked = pick(hash).getSubchannel();
      assertThat(pick(hash).getSubchannel()).isSameAs(picked);
      counts.merge(picked, 1, Integer::sum);
    }
    assertThat(counts).hasSize(3);
    assertThat(counts.values()).allMatch(n -> n > 600);
  }

  @Test
  void weightsScaleAnEndpointsShare() {
    accept(List.of(endpoint(1001, 1), endpoint(1002, 3)), "{}");
    allReady();
    int heavy = 0;
    for (long i = 0; i < 4000; i++) {
      if (pick(i * 0x9E3779B97F4A7C15L).getSubchannel() == helper.subchannel(1002)) {
        heavy++;
      }
    }
    assertThat(heavy).isBetween(2600, 3400); // ~3000 of 4000
  }

  @Test
  void aFailedEndpointsCallsGoToTheNextEndpointOnTheRingAndOnlyThose() {
    acceptThree();
    allReady();
    Map<Long, LoadBalancer.Subchannel> before = new HashMap<>();
    for (long i = 0; i < 300; i++) {
      before.put(i * 0x9E3779B97F4A7C15L, pick(i * 0x9E3779B97F4A7C15L).getSubchannel());
    }
    RecordingHelper.FakeSubchannel failed =
        (RecordingHelper.FakeSubchannel) pick(7).getSubchannel();
    int requests = failed.connectionRequests;
    helper.run(failed::fail);
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);

    LoadBalancer.Subchannel next = pick(7).getSubchannel();
    assertThat(next).isNotNull().isNotSameAs(failed);
    assertThat(failed.connectionRequests).isGreaterThan(requests); // A42: it is asked to reconnect
    int moved = 0;
    for (Map.Entry<Long, LoadBalancer.Subchannel> entry : before.entrySet()) {
      LoadBalancer.Subchannel now = pick(entry.getKey()).getSubchannel();
      assertThat(now).isNotNull().isNotSameAs(failed);
      if (entry.getValue() != failed) {
        assertThat(now).isSameAs(entry.getValue());
      } else {
        moved++;
      }
    }
    assertThat(moved).isBetween(50, 150); // about a third of the hashes were on it
  }

  @Test
  void behindAFailedEndpointAnIdleOneIsAskedToConnectAndTheCallWaits() {
    acceptThree();
    allReady();
    RecordingHelper.FakeSubchannel first = (RecordingHelper.FakeSubchannel) pick(7).getSubchannel();
    helper.run(first::fail);
    RecordingHelper.FakeSubchannel second =
        (RecordingHelper.FakeSubchannel) pick(7).getSubchannel();
    // The next endpoint on the ring loses its connection: IDLE, not failed.
    helper.run(() -> second.setState(ConnectivityState.IDLE));
    int requests = second.connectionRequests;
    LoadBalancer.PickResult result = pick(7);
    assertThat(result.hasResult()).isFalse(); // queued, not sent to the third endpoint
    assertThat(second.connectionRequests).isEqualTo(requests + 1);
  }

  @Test
  void aggregateStateFollowsA42() {
    acceptThree();
    RecordingHelper.FakeSubchannel a = helper.subchannel(1001);
    RecordingHelper.FakeSubchannel b = helper.subchannel(1002);
    RecordingHelper.FakeSubchannel c = helper.subchannel(1003);
    helper.run(a::fail);
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING); // one failed of several
    // Failed stays failed while it reconnects (sticky).
    helper.run(() -> a.setState(ConnectivityState.CONNECTING));
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING);
    int cRequests = c.connectionRequests;
    helper.run(b::fail);
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    // Nothing else connects: the balancer starts the IDLE one itself.
    assertThat(c.connectionRequests).isEqualTo(cRequests + 1);
    // A failed endpoint whose back-off is over reconnects at once.
    int bRequests = b.connectionRequests;
    helper.run(() -> b.setState(ConnectivityState.IDLE));
    assertThat(b.connectionRequests).isEqualTo(bRequests + 1);
    helper.run(() -> c.setState(ConnectivityState.READY));
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
  }

  @Test
  void whenEveryEndpointFailedCallsFailWithTheError() {
    acceptThree();
    helper.run(() -> helper.subchannels.forEach(RecordingHelper.FakeSubchannel::fail));
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    LoadBalancer.PickResult result = pick(99);
    assertThat(result.getSubchannel()).isNull();
    assertThat(result.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(result.getStatus().getDescription()).contains("ring_hash", "connection refused");
    assertThat(result.isDrop()).isFalse(); // wait-for-ready calls wait
  }

  @Test
  void oneEndpointAloneFailedIsTransientFailure() {
    accept(List.of(endpoint(1001, 1)));
    helper.run(() -> helper.subchannel(1001).fail());
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
  }

  @Test
  void removedEndpointsAreShutDownAndKeptOnesReused() {
    acceptThree();
    RecordingHelper.FakeSubchannel kept = helper.subchannel(1002);
    accept(List.of(endpoint(1002, 1), endpoint(1004, 1)));
    assertThat(helper.subchannel(1002)).isSameAs(kept);
    assertThat(helper.subchannels.stream().filter(s -> s.shutdown)).hasSize(2);
    helper.run(balancer::shutdown);
    assertThat(helper.subchannels).allMatch(s -> s.shutdown);
  }

  @Test
  void noEndpointsIsTransientFailure() {
    accept(List.of());
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(pick(1).getStatus().getDescription()).contains("no endpoints");
  }

  @Test
  void configDefaultsCapsAndErrors() {
    assertThat(parse("{}").getConfig()).isEqualTo(new RingHashConfig(1024, 4096));
    assertThat(parse("{\"minRingSize\": 10, \"maxRingSize\": 8388608}").getConfig())
        .isEqualTo(new RingHashConfig(10, 4096));
    assertThat(parse("{\"minRingSize\": 5000, \"maxRingSize\": 6000}").getConfig())
        .isEqualTo(new RingHashConfig(4096, 4096));
    assertThat(parse("{\"minRingSize\": 20, \"maxRingSize\": 10}").getError().getDescription())
        .isEqualTo("ring_hash_experimental config: minRingSize: 20 is greater than maxRingSize 10");
    assertThat(parse("{\"maxRingSize\": 8388609}").getError().getDescription())
        .contains("maxRingSize: must be in 1..8388608, was 8388609");
    assertThat(parse("{\"minRingSize\": 0}").getError().getDescription())
        .contains("minRingSize: must be in 1..8388608, was 0");
    assertThat(parse("{\"minRingSize\": \"big\"}").getError().getDescription())
        .contains("minRingSize: must be a non-negative integer");
  }

  @Test
  void theSwitchMakesTheProviderUnavailable() {
    assertThat(new RingHashProvider(false).isAvailable()).isFalse();
    assertThat(new RingHashProvider(true).isAvailable()).isTrue();
  }
}
