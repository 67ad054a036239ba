package dev.tern;

import java.util.List;

/**
 * Where a channel's non-per-call metrics go (gRFC A79's stats plugin): added to a channel with
 * {@link ManagedChannelBuilder#addMetricSink}; tern-opentelemetry's exports to an OpenTelemetry
 * {@code Meter}. A sink decides which instruments it records (a recording for one it does not
 * record is dropped at once) and which optional labels it keeps.
 *
 * <p>The channel has checked each recording's instrument kind and label counts before a sink sees
 * it. Implementations must be thread-safe, must not block, and should not throw.
 */
public interface MetricSink {
  /** Adds {@code value} to a {@link MetricInstrument.Kind#LONG_COUNTER} counter. */
  void addLongCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optionalLabels);

  /** Adds {@code value} (negative to subtract) to a {@code LONG_UP_DOWN_COUNTER}. */
  void addLongUpDownCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optionalLabels);

  /** Records {@code value} in a {@code DOUBLE_HISTOGRAM}. */
  void recordDoubleHistogram(
      MetricInstrument instrument, double value, List<String> labels, List<String> optionalLabels);

  /**
   * Calls {@code callback} whenever the sink collects {@code gauges} (all {@code LONG_GAUGE}),
   * until the registration is closed. The callback runs on the sink's collecting thread and must be
   * quick.
   */
  MetricRecorder.Registration registerBatchCallback(
      MetricRecorder.BatchCallback callback, List<MetricInstrument> gauges);
}
