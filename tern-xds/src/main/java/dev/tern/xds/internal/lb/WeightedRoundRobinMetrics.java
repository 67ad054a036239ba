package dev.tern.xds.internal.lb;

import dev.tern.Attributes;
import dev.tern.MetricInstruments;
import dev.tern.MetricRecorder;
import java.util.List;

/**
 * {@code weighted_round_robin}'s metrics of gRFC A78 (with A89's backend service label), recorded
 * at each scheduler update: endpoints without a usable weight yet, endpoints whose weight expired,
 * each endpoint's weight (0 without one), and whether the update fell back to round robin (fewer
 * than two endpoints with a weight). Labels: the channel's target; the locality and backend service
 * of the balancer's endpoints (from their attributes: under {@code weighted_target} a balancer
 * serves one locality of one cluster), else "". Without sinks {@link #newUpdate()} returns null and
 * nothing is counted.
 *
 * <p>Not thread-safe: used in the channel's synchronization context.
 */
final class WeightedRoundRobinMetrics {
  private final MetricRecorder recorder;
  private final List<String> target;
  private List<String> optional = List.of("", "");

  /** What one scheduler update found. */
  static final class Update {
    int notYetUsable;
    int stale;
  }

  WeightedRoundRobinMetrics(MetricRecorder recorder) {
    this.recorder = recorder;
    this.target = List.of(recorder.target());
  }

  /** Takes the locality and backend service labels from an endpoint's attributes. */
  void setLabelsFrom(Attributes endpointAttributes) {
    String locality = endpointAttributes.get(MetricInstruments.LOCALITY_ATTRIBUTE);
    String backend = endpointAttributes.get(MetricInstruments.BACKEND_SERVICE_ATTRIBUTE);
    optional = List.of(locality == null ? "" : locality, backend == null ? "" : backend);
  }

  /** A tally for one scheduler update, or null when nothing is recorded. */
  Update newUpdate() {
    return recorder.isEmpty() ? null : new Update();
  }

  /** Records a scheduler update: {@code weights} as read into {@code update}. */
  void record(Update update, double[] weights) {
    if (update == null) {
      return;
    }
    int weighted = 0;
    for (double weight : weights) {
      recorder.recordDoubleHistogram(
          MetricInstruments.WRR_ENDPOINT_WEIGHTS, weight, target, optional);
      if (weight > 0) {
        weighted++;
      }
    }
    if (weighted < 2) {
      recorder.addLongCounter(MetricInstruments.WRR_RR_FALLBACK, 1, target, optional);
    }
    recorder.addLongCounter(
        MetricInstruments.WRR_ENDPOINT_WEIGHT_NOT_YET_USABLE,
        update.notYetUsable,
        target,
        optional);
    recorder.addLongCounter(
        MetricInstruments.WRR_ENDPOINT_WEIGHT_STALE, update.stale, target, optional);
  }
}
