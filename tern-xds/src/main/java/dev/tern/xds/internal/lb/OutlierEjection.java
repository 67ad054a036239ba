package dev.tern.xds.internal.lb;

import dev.tern.xds.XdsCluster;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * gRFC A50's two ejection algorithms, run at the end of each interval over the addresses' last
 * interval counts. Both stop ejecting once more than {@code maxEjectionPercent} of the addresses
 * are ejected (checked before each one, so at least one address can always be ejected), skip
 * addresses already ejected, and eject an outlier only if a draw in [0, 100) falls below the
 * algorithm's enforcement percentage. Stateless; used in the channel's synchronization context.
 */
final class OutlierEjection {
  private OutlierEjection() {}

  /**
   * Success rate: among the addresses with at least {@code requestVolume} calls (if there are at
   * least {@code minimumHosts} of them), ejects each whose success rate is below {@code mean -
   * stdev * stdevFactor / 1000} (population standard deviation).
   */
  static void successRate(
      Collection<OutlierEndpoint> endpoints,
      XdsCluster.SuccessRateEjection config,
      int maxEjectionPercent,
      IntUnaryOperator random,
      long nowNanos) {
    List<OutlierEndpoint> candidates = new ArrayList<>();
    for (OutlierEndpoint endpoint : endpoints) {
      if (endpoint.counter().volume() >= Math.max(1, config.requestVolume())) {
        candidates.add(endpoint);
      }
    }
    if (candidates.isEmpty() || candidates.size() < config.minimumHosts()) {
      return;
    }
    double sum = 0;
    for (OutlierEndpoint endpoint : candidates) {
      sum += successRate(endpoint);
    }
    double mean = sum / candidates.size();
    double squares = 0;
    for (OutlierEndpoint endpoint : candidates) {
      double deviation = successRate(endpoint) - mean;
      squares += deviation * deviation;
    }
    double stdev = Math.sqrt(squares / candidates.size());
    double threshold = mean - stdev * (config.stdevFactor() / 1000.0);
    for (OutlierEndpoint endpoint : candidates) {
      if (ejectedPercent(endpoints) > maxEjectionPercent) {
        return;
      }
      if (!endpoint.ejected()
          && successRate(endpoint) < threshold
          && random.applyAsInt(100) < config.enforcementPercentage()) {
        endpoint.eject(nowNanos);
      }
    }
  }

  /**
   * Failure percentage: if there are at least {@code minimumHosts} addresses, ejects each with at
   * least {@code requestVolume} calls whose failure percentage is above {@code threshold}.
   */
  static void failurePercentage(
      Collection<OutlierEndpoint> endpoints,
      XdsCluster.FailurePercentageEjection config,
      int maxEjectionPercent,
      IntUnaryOperator random,
      long nowNanos) {
    if (endpoints.size() < config.minimumHosts()) {
      return;
    }
    for (OutlierEndpoint endpoint : endpoints) {
      if (ejectedPercent(endpoints) > maxEjectionPercent) {
        return;
      }
      OutlierCallCounter counter = endpoint.counter();
      long volume = counter.volume();
      if (endpoint.ejected() || volume == 0 || volume < config.requestVolume()) {
        continue;
      }
      if (100.0 * counter.failures() / volume > config.threshold()
          && random.applyAsInt(100) < config.enforcementPercentage()) {
        endpoint.eject(nowNanos);
      }
    }
  }

  private static double successRate(OutlierEndpoint endpoint) {
    OutlierCallCounter counter = endpoint.counter();
    return (double) counter.successes() / counter.volume();
  }

  private static double ejectedPercent(Collection<OutlierEndpoint> endpoints) {
    int ejected = 0;
    for (OutlierEndpoint endpoint : endpoints) {
      if (endpoint.ejected()) {
        ejected++;
      }
    }
    return 100.0 * ejected / endpoints.size();
  }
}
