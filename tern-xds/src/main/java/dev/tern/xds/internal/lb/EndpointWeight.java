package dev.tern.xds.internal.lb;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import dev.tern.xds.internal.orca.OrcaReportListener;
import java.util.function.LongSupplier;

/**
 * One endpoint's weight in {@code weighted_round_robin} (gRFC A58), from its load reports: {@code
 * qps / (utilization + eps / qps * errorUtilizationPenalty)}, the utilization being the report's
 * {@code application_utilization} when it is positive, else its {@code cpu_utilization}. A report
 * with no qps or no utilization changes nothing. The weight counts (is not 0) only once reports
 * have come for {@code blackoutPeriod} without a gap of {@code weightExpirationPeriod}; after such
 * a gap it is 0 until a new blackout period has passed.
 *
 * <p>Thread-safe: per-call reports come from the threads that end calls, the weight is read in the
 * synchronization context.
 */
final class EndpointWeight implements OrcaReportListener {
  /** No time: the endpoint has no weight (no report since it became READY or since expiry). */
  private static final long NEVER = Long.MIN_VALUE;

  private final LongSupplier nanoTime;
  private volatile WeightedRoundRobinConfig config;
  private long nonEmptySince = NEVER;
  private long lastUpdated = NEVER;
  private double weight;

  EndpointWeight(LongSupplier nanoTime, WeightedRoundRobinConfig config) {
    this.nanoTime = nanoTime;
    this.config = config;
  }

  void setConfig(WeightedRoundRobinConfig config) {
    this.config = config;
  }

  /** The weight a report gives, or 0 if it gives none (A58). */
  static double weightOf(OrcaLoadReport report, double errorUtilizationPenalty) {
    double utilization =
        report.getApplicationUtilization() > 0
            ? report.getApplicationUtilization()
            : report.getCpuUtilization();
    double qps = report.getRpsFractional();
    if (!(utilization > 0) || !(qps > 0)) {
      return 0;
    }
    double penalty = report.getEps() / qps * errorUtilizationPenalty;
    double weight = qps / (utilization + penalty);
    return Double.isFinite(weight) ? weight : 0;
  }

  @Override
  public void onLoadReport(OrcaLoadReport report) {
    double fresh = weightOf(report, config.errorUtilizationPenalty());
    if (fresh == 0) {
      return;
    }
    long now = nanoTime.getAsLong();
    synchronized (this) {
      if (nonEmptySince == NEVER) {
        nonEmptySince = now;
      }
      lastUpdated = now;
      weight = fresh;
    }
  }

  /** The weight to use now, 0 when there is none (never reported, in blackout, or expired). */
  double weight() {
    return weight(null);
  }

  /**
   * {@link #weight()}, counting in {@code counts} (if not null) why there is none: an expired
   * weight as stale, none yet or one in its blackout period as not yet usable (gRFC A78).
   */
  synchronized double weight(WeightedRoundRobinMetrics.Update counts) {
    if (lastUpdated == NEVER) {
      if (counts != null) {
        counts.notYetUsable++;
      }
      return 0;
    }
    long now = nanoTime.getAsLong();
    WeightedRoundRobinConfig current = config;
    if (now - lastUpdated >= current.weightExpirationPeriodNanos()) {
      nonEmptySince = NEVER; // the next report starts a new blackout period
      lastUpdated = NEVER;
      if (counts != null) {
        counts.stale++;
      }
      return 0;
    }
    if (current.blackoutPeriodNanos() > 0 && now - nonEmptySince < current.blackoutPeriodNanos()) {
      if (counts != null) {
        counts.notYetUsable++;
      }
      return 0;
    }
    return weight;
  }

  /** Forgets the reports so far (the endpoint has (re)connected): a new blackout period starts. */
  synchronized void reset() {
    nonEmptySince = NEVER;
    lastUpdated = NEVER;
    weight = 0;
  }
}
