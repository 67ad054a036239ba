package dev.tern.internal.lb;

import dev.tern.ClientStreamTracer;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.Subchannel;
import dev.tern.LoadBalancer.SubchannelPicker;
import dev.tern.Metadata;
import dev.tern.Status;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

/**
 * {@code least_request} (gRFC A48): of {@code choiceCount} READY endpoints drawn at random (2 by
 * default), the one with the fewest calls in flight from this channel. A stream tracer counts each
 * call from pick to close; the counts follow an endpoint across pickers and while it is not READY,
 * until the resolver drops it.
 *
 * <p>Not thread-safe: runs in the channel's synchronization context; its picker is thread-safe.
 */
final class LeastRequestLoadBalancer extends EndpointListLoadBalancer {
  private final Map<Subchannel, Counted> counts = new IdentityHashMap<>();
  private final IntUnaryOperator randomIndex;
  private int choiceCount = LeastRequestLoadBalancerProvider.DEFAULT_CHOICE_COUNT;

  LeastRequestLoadBalancer(Helper helper) {
    this(helper, bound -> ThreadLocalRandom.current().nextInt(bound));
  }

  /**
   * @param randomIndex for a bound n, a random int in [0, n); called by pickers on any thread
   *     (tests pass a scripted one)
   */
  LeastRequestLoadBalancer(Helper helper, IntUnaryOperator randomIndex) {
    super(helper);
    this.randomIndex = randomIndex;
  }

  @Override
  public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
    if (resolved.getLoadBalancingPolicyConfig() instanceof LeastRequestConfig config) {
      choiceCount = config.choiceCount();
    }
    return super.acceptResolvedAddresses(resolved);
  }

  @Override
  SubchannelPicker readyPicker(List<Endpoint> ready) {
    Counted[] counted = new Counted[ready.size()];
    for (int i = 0; i < counted.length; i++) {
      Subchannel subchannel = ready.get(i).subchannel;
      counted[i] = counts.computeIfAbsent(subchannel, Counted::new);
    }
    // Forget only endpoints that are gone: one that left READY may still have calls in flight.
    counts.keySet().retainAll(allEndpoints().stream().map(e -> e.subchannel).toList());
    return new Picker(counted, choiceCount, randomIndex);
  }

  /** One endpoint's calls in flight, and the pick result that counts them. Thread-safe. */
  static final class Counted extends ClientStreamTracer.Factory {
    final AtomicInteger outstanding = new AtomicInteger();
    final PickResult result;

    Counted(Subchannel subchannel) {
      this.result = PickResult.withSubchannel(subchannel, this);
    }

    @Override
    public ClientStreamTracer newClientStreamTracer(
        ClientStreamTracer.StreamInfo info, Metadata headers) {
      outstanding.incrementAndGet();
      return new ClientStreamTracer() {
        @Override
        public void streamClosed(Status status) {
          outstanding.decrementAndGet();
        }
      };
    }
  }

  /** Picks the least loaded of a few random endpoints. Thread-safe. */
  static final class Picker extends SubchannelPicker {
    private final Counted[] endpoints;
    private final int choiceCount;
    private final IntUnaryOperator randomIndex;

    Picker(Counted[] endpoints, int choiceCount, IntUnaryOperator randomIndex) {
      this.endpoints = endpoints;
      this.choiceCount = choiceCount;
      this.randomIndex = randomIndex;
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      Counted best = endpoints[randomIndex.applyAsInt(endpoints.length)];
      for (int i = 1; i < choiceCount; i++) {
        Counted candidate = endpoints[randomIndex.applyAsInt(endpoints.length)];
        if (candidate.outstanding.get() < best.outstanding.get()) {
          best = candidate;
        }
      }
      return best.result;
    }
  }
}
