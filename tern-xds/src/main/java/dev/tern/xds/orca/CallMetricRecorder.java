package dev.tern.xds.orca;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import dev.tern.Context;

/**
 * The backend metrics of one call (gRFC A51), sent to the client in the call's trailer {@code
 * endpoint-load-metrics-bin} when the call closes. A handler gets its call's recorder with {@link
 * #current()} when the server has {@link OrcaMetricReportingServerInterceptor}; without it, {@code
 * current()} is a recorder whose values go nowhere, so handlers can record unconditionally.
 *
 * <p>Each setter replaces the value set before; a value out of its range (a negative number, a
 * utilization above 1 where the report's proto bounds it, NaN, infinity) throws {@link
 * IllegalArgumentException} naming it, and a value never set is not sent. Values set after the call
 * has closed are not sent.
 *
 * <p>Thread-safe: a handler may record from any thread.
 */
public final class CallMetricRecorder {
  static final Context.Key<CallMetricRecorder> KEY = Context.key("dev.tern.xds.orca.recorder");
  private static final CallMetricRecorder DISCARDING = new CallMetricRecorder();

  private final MetricValues values = new MetricValues();

  CallMetricRecorder() {}

  /** The current call's recorder, or one that discards what it is given when there is none. */
  public static CallMetricRecorder current() {
    CallMetricRecorder recorder = KEY.get();
    return recorder == null ? DISCARDING : recorder;
  }

  /** CPU utilization, a fraction of the CPU available (may exceed 1), at least 0. */
  public synchronized CallMetricRecorder recordCpuUtilizationMetric(double value) {
    values.cpu(value);
    return this;
  }

  /** Memory utilization, a fraction of the memory available: in [0, 1]. */
  public synchronized CallMetricRecorder recordMemoryUtilizationMetric(double value) {
    values.memory(value);
    return this;
  }

  /**
   * Application utilization (may exceed 1), at least 0; weighted_round_robin prefers it to CPU
   * utilization when it is set.
   */
  public synchronized CallMetricRecorder recordApplicationUtilizationMetric(double value) {
    values.application(value);
    return this;
  }

  /** Queries per second the backend serves, at least 0. */
  public synchronized CallMetricRecorder recordQpsMetric(double value) {
    values.qps(value);
    return this;
  }

  /** Errors per second the backend returns, at least 0. */
  public synchronized CallMetricRecorder recordEpsMetric(double value) {
    values.eps(value);
    return this;
  }

  /** A named utilization in [0, 1] (the report's {@code utilization} map). */
  public synchronized CallMetricRecorder recordUtilizationMetric(String name, double value) {
    values.utilization(name, value);
    return this;
  }

  /** A named cost of this request (the report's {@code request_cost} map), any finite number. */
  public synchronized CallMetricRecorder recordRequestCostMetric(String name, double value) {
    values.requestCost(name, value);
    return this;
  }

  /** An application metric (the report's {@code named_metrics} map), any finite number. */
  public synchronized CallMetricRecorder recordNamedMetric(String name, double value) {
    values.named(name, value);
    return this;
  }

  /** The call's values over {@code base}'s (the server's): the call's win. */
  synchronized OrcaLoadReport report(OrcaLoadReport.Builder base) {
    values.writeTo(base);
    return base.build();
  }
}
