package dev.tern.internal.lb;

import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.SubchannelPicker;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code round_robin}: every READY endpoint in turn (see {@link EndpointListLoadBalancer}); each
 * new picker starts at a random endpoint, so many clients do not all hit the first server first.
 *
 * <p>Not thread-safe: runs in the channel's synchronization context; its picker is thread-safe.
 */
final class RoundRobinLoadBalancer extends EndpointListLoadBalancer {
  private final Random random;

  RoundRobinLoadBalancer(Helper helper, Random random) {
    super(helper);
    this.random = random;
  }

  @Override
  SubchannelPicker readyPicker(List<Endpoint> ready) {
    PickResult[] results = new PickResult[ready.size()];
    for (int i = 0; i < results.length; i++) {
      results[i] = PickResult.withSubchannel(ready.get(i).subchannel);
    }
    return new Picker(results, random.nextInt(results.length));
  }

  /** Hands out the results in turn; lock-free and allocation-free. Thread-safe. */
  static final class Picker extends SubchannelPicker {
    private final PickResult[] results;
    private final AtomicInteger next;

    Picker(PickResult[] results, int start) {
      this.results = results;
      this.next = new AtomicInteger(start);
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      int index = next.getAndIncrement() % results.length;
      return results[index < 0 ? index + results.length : index];
    }

    @Override
    public String toString() {
      return "RoundRobinPicker{" + List.of(results) + "}";
    }
  }
}
