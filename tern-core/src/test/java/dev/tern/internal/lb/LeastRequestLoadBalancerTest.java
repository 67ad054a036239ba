package dev.tern.internal.lb;

import static dev.tern.internal.lb.FakeLoadBalancerHelper.address;
import static dev.tern.internal.lb.FakeLoadBalancerHelper.groups;
import static dev.tern.internal.lb.FakeLoadBalancerHelper.resolved;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientStreamTracer;
import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.Metadata;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.internal.lb.FakeLoadBalancerHelper.FakeSubchannel;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LeastRequestLoadBalancerTest {
  private static final SocketAddress A = address("a");
  private static final SocketAddress B = address("b");
  private static final SocketAddress C = address("c");

  private final FakeLoadBalancerHelper helper = new FakeLoadBalancerHelper();
  private final Deque<Integer> draws = new ArrayDeque<>();
  private final List<Integer> bounds = new ArrayList<>();
  private final LeastRequestLoadBalancer balancer =
      new LeastRequestLoadBalancer(
          helper,
          bound -> {
            bounds.add(bound);
            Integer next = draws.poll();
            if (next == null) {
              throw new AssertionError("the test scripted too few random draws");
            }
            return next;
          });
  private final LeastRequestLoadBalancerProvider provider = new LeastRequestLoadBalancerProvider();

  @AfterEach
  void nothingThrewInTheContext() {
    assertThat(helper.thrown).isEmpty();
  }

  private void accept(Map<String, ?> rawConfig, SocketAddress... addresses) {
    Object config = provider.parseLoadBalancingPolicyConfig(rawConfig).getConfig();
    helper.run(
        () ->
            balancer.acceptResolvedAddresses(
                resolved(groups(addresses)).toBuilder()
                    .setLoadBalancingPolicyConfig(config)
                    .build()));
  }

  private void ready(SocketAddress... addresses) {
    for (SocketAddress address : addresses) {
      helper.subchannel(address).report(ConnectivityState.READY);
    }
  }

  /** Picks with the random draws {@code indexes}, returning the result. */
  private PickResult pick(Integer... indexes) {
    draws.addAll(List.of(indexes));
    PickResult result = helper.pick();
    assertThat(draws).as("every scripted draw was used").isEmpty();
    return result;
  }

  private FakeSubchannel picked(Integer... indexes) {
    return (FakeSubchannel) pick(indexes).getSubchannel();
  }

  /** Starts a stream the way the channel does: through the pick's tracer factory. */
  private static ClientStreamTracer startStream(PickResult result) {
    assertThat(result.getStreamTracerFactory()).isNotNull();
    return result
        .getStreamTracerFactory()
        .newClientStreamTracer(
            new ClientStreamTracer.StreamInfo(CallOptions.DEFAULT), new Metadata());
  }

  @Test
  void picksTheEndpointWithFewerCallsInFlight() {
    accept(Map.of(), A, B);
    ready(A, B);
    FakeSubchannel a = helper.subchannel(A);
    FakeSubchannel b = helper.subchannel(B);
    assertThat(picked(0, 1)).as("a tie goes to the first drawn").isSameAs(a);

    ClientStreamTracer onA = startStream(pick(0, 1));
    assertThat(picked(0, 1)).isSameAs(b);
    assertThat(picked(1, 0)).isSameAs(b);

    ClientStreamTracer onB = startStream(pick(1, 0));
    ClientStreamTracer secondOnB = startStream(pick(1, 1));
    assertThat(picked(1, 0)).isSameAs(a);

    onA.streamClosed(Status.OK);
    onB.streamClosed(Status.CANCELLED);
    secondOnB.streamClosed(Status.UNAVAILABLE);
    assertThat(picked(1, 0)).isSameAs(b);
  }

  @Test
  void callsInFlightStayCountedWhileTheirEndpointIsBrieflyNotReady() {
    accept(Map.of(), A, B);
    ready(A, B);
    FakeSubchannel a = helper.subchannel(A);
    FakeSubchannel b = helper.subchannel(B);
    ClientStreamTracer onA = startStream(pick(0, 0));

    a.report(ConnectivityState.IDLE); // connection lost; the call's stream may still finish
    a.report(ConnectivityState.READY);

    assertThat(picked(0, 1)).as("A still has its call in flight").isSameAs(b);
    onA.streamClosed(Status.UNAVAILABLE);
    assertThat(picked(0, 1)).isSameAs(a);
  }

  @Test
  void picksOnlyAmongReadyEndpoints() {
    accept(Map.of(), A, B, C);
    ready(B);

    assertThat(picked(0, 0)).isSameAs(helper.subchannel(B));
    assertThat(bounds).containsOnly(1);
  }

  @Test
  void choiceCountSetsHowManyEndpointsEachPickCompares() {
    accept(Map.of("choiceCount", 3.0), A, B, C);
    ready(A, B, C);
    startStream(pick(0, 0, 0)); // A busy
    startStream(pick(1, 1, 1)); // B busy

    assertThat(picked(0, 1, 2)).isSameAs(helper.subchannel(C));
    assertThat(bounds).containsOnly(3);
  }

  @Test
  void callCountsSurviveANewPicker() {
    accept(Map.of(), A, B);
    ready(A, B);
    ClientStreamTracer onA = startStream(pick(0, 0));

    accept(Map.of(), A, B, C);
    ready(C); // a new READY set: a new picker

    assertThat(picked(0, 1)).isSameAs(helper.subchannel(B));
    onA.streamClosed(Status.OK);
    assertThat(picked(0, 1)).isSameAs(helper.subchannel(A));
  }

  @Test
  void stateFollowsTheEndpointsAsRoundRobinDoes() {
    accept(Map.of(), A, B);
    assertThat(helper.state()).isEqualTo(ConnectivityState.CONNECTING);

    helper.subchannel(A).fail(Status.UNAVAILABLE.withDescription("a refused"));
    helper.subchannel(B).fail(Status.UNAVAILABLE.withDescription("b refused"));
    assertThat(helper.state()).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.refreshes).isEqualTo(2);

    ready(A);
    assertThat(helper.state()).isEqualTo(ConnectivityState.READY);
  }

  @Test
  void providerParsesChoiceCountCappingItAtTen() {
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of()).getConfig())
        .isEqualTo(new LeastRequestConfig(2));
    assertThat(provider.parseLoadBalancingPolicyConfig(null).getConfig())
        .isEqualTo(new LeastRequestConfig(2));
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of("choiceCount", 2.0)).getConfig())
        .isEqualTo(new LeastRequestConfig(2));
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of("choiceCount", 7)).getConfig())
        .isEqualTo(new LeastRequestConfig(7));
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of("choiceCount", 10.0)).getConfig())
        .isEqualTo(new LeastRequestConfig(10));
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of("choiceCount", 11.0)).getConfig())
        .isEqualTo(new LeastRequestConfig(10));
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of("choiceCount", 1e9)).getConfig())
        .isEqualTo(new LeastRequestConfig(10));
  }

  @Test
  void providerRejectsBadChoiceCountsNamingTheField() {
    for (Object bad : List.of(1.0, 0, -3.0, 2.5, "3", true, Double.NaN)) {
      ConfigOrError parsed = provider.parseLoadBalancingPolicyConfig(Map.of("choiceCount", bad));
      assertThat(parsed.getError()).as("choiceCount " + bad).isNotNull();
      assertThat(parsed.getError().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(parsed.getError().getDescription()).contains("choiceCount", String.valueOf(bad));
    }

    // Fields it does not know are ignored, so a config written for a newer client still works.
    ConfigOrError unknown =
        provider.parseLoadBalancingPolicyConfig(Map.of("choices", 3.0, "choiceCount", 4.0));
    assertThat(unknown.getError()).isNull();
    assertThat(unknown.getConfig()).isEqualTo(new LeastRequestConfig(4));
  }
}
