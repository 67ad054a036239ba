package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.SubchannelPicker;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks among the READY endpoints of {@code weighted_round_robin} by their weights (gRFC A58). The
 * balancer gives it a new {@link StaticStrideScheduler} every weight update period (recording the
 * update's metrics, {@link WeightedRoundRobinMetrics}); picks read it from a volatile field,
 * without locking, allocating or recording. With per-call reports on, each result carries its
 * endpoint's trailer reader. Thread-safe.
 */
final class WeightedRoundRobinPicker extends SubchannelPicker {
  private final List<WeightedRoundRobinBalancer.Endpoint> endpoints;
  private final PickResult[] results;
  private final WeightedRoundRobinMetrics metrics;
  private volatile StaticStrideScheduler scheduler;

  WeightedRoundRobinPicker(
      List<WeightedRoundRobinBalancer.Endpoint> endpoints,
      boolean perCall,
      WeightedRoundRobinMetrics metrics) {
    this.endpoints = List.copyOf(endpoints);
    this.metrics = metrics;
    this.results = new PickResult[endpoints.size()];
    for (int i = 0; i < results.length; i++) {
      WeightedRoundRobinBalancer.Endpoint endpoint = endpoints.get(i);
      results[i] =
          perCall
              ? PickResult.withSubchannel(endpoint.subchannel, endpoint.perCallReports)
              : PickResult.withSubchannel(endpoint.subchannel);
    }
    updateWeights();
  }

  /**
   * Reads the endpoints' weights again (in the synchronization context), and records the update's
   * metrics (gRFC A78).
   */
  void updateWeights() {
    WeightedRoundRobinMetrics.Update update = metrics.newUpdate();
    double[] weights = new double[endpoints.size()];
    for (int i = 0; i < weights.length; i++) {
      weights[i] = endpoints.get(i).weight.weight(update);
    }
    metrics.record(update, weights);
    scheduler = new StaticStrideScheduler(weights, ThreadLocalRandom.current().nextLong());
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    return results[scheduler.pick()];
  }

  @Override
  public String toString() {
    return "WeightedRoundRobinPicker{" + endpoints.size() + " endpoints}";
  }
}
