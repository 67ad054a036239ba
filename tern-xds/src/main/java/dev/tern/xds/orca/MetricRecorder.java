package dev.tern.xds.orca;

import com.github.xds.data.orca.v3.OrcaLoadReport;

/**
 * The backend metrics of a whole server (gRFC A51): what {@link OrcaService} streams to clients out
 * of band, and what {@link OrcaMetricReportingServerInterceptor#create(MetricRecorder)} adds to
 * each call's report where the call did not record a value of its own. The application keeps it up
 * to date (from its own sampling of CPU, memory, queries per second...).
 *
 * <p>A value out of its range throws {@link IllegalArgumentException} naming it (see {@link
 * CallMetricRecorder}); a value never set is not reported.
 *
 * <p>Thread-safe: values may be set from any thread while reports are read.
 */
public final class MetricRecorder {
  private MetricValues values = new MetricValues();

  private MetricRecorder() {}

  /** A recorder with no values. */
  public static MetricRecorder create() {
    return new MetricRecorder();
  }

  /** CPU utilization, a fraction of the CPU available (may exceed 1), at least 0. */
  public synchronized void setCpuUtilizationMetric(double value) {
    values.cpu(value);
  }

  /** Memory utilization in [0, 1]. */
  public synchronized void setMemoryUtilizationMetric(double value) {
    values.memory(value);
  }

  /** Application utilization (may exceed 1), at least 0. */
  public synchronized void setApplicationUtilizationMetric(double value) {
    values.application(value);
  }

  /** Queries per second, at least 0. */
  public synchronized void setQpsMetric(double value) {
    values.qps(value);
  }

  /** Errors per second, at least 0. */
  public synchronized void setEpsMetric(double value) {
    values.eps(value);
  }

  /** A named utilization in [0, 1]. */
  public synchronized void putUtilizationMetric(String name, double value) {
    values.utilization(name, value);
  }

  /** Removes a named utilization. */
  public synchronized void removeUtilizationMetric(String name) {
    values.removeUtilization(name);
  }

  /** A named application metric, any finite number. */
  public synchronized void putNamedMetric(String name, double value) {
    values.named(name, value);
  }

  /** Forgets every value. */
  public synchronized void clear() {
    values = new MetricValues();
  }

  /** A builder holding the current values. */
  synchronized OrcaLoadReport.Builder snapshot() {
    OrcaLoadReport.Builder report = OrcaLoadReport.newBuilder();
    values.writeTo(report);
    return report;
  }
}
