package dev.tern.grpcjava.internal.metrics;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A grpc-java {@code io.grpc.MetricSink} written against {@code io.grpc} only, as an application's
 * would be: it keeps each recording as a line ({@code name value [labels] [optional labels]}) and
 * the instrument it came with, and runs its batch callbacks when a test calls {@link #collect}. A
 * recording of an instrument it was not told of first ({@code updateMeasures}) is kept as {@code
 * unmeasured name}. Thread-safe.
 */
public final class RecordingGrpcJavaSink implements io.grpc.MetricSink {
  private final Map<String, Boolean> enabledMetrics;
  private final List<String> recordings = new CopyOnWriteArrayList<>();
  private final List<io.grpc.MetricInstrument> instruments = new CopyOnWriteArrayList<>();
  private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
  private volatile int measures;

  /** A sink that records the instruments {@code enabledMetrics} turns on. */
  public RecordingGrpcJavaSink(Map<String, Boolean> enabledMetrics) {
    this.enabledMetrics = new HashMap<>(enabledMetrics);
  }

  /** A sink that records {@code names} (and the instruments on by default). */
  public static RecordingGrpcJavaSink enabling(String... names) {
    Map<String, Boolean> enabled = new HashMap<>();
    for (String name : names) {
      enabled.put(name, true);
    }
    return new RecordingGrpcJavaSink(enabled);
  }

  /** What was recorded so far, oldest first (a live view). */
  public List<String> recordings() {
    return recordings;
  }

  /** The grpc-java instrument of each recording, in the same order (a live view). */
  public List<io.grpc.MetricInstrument> instruments() {
    return instruments;
  }

  /** Runs the registered batch callbacks, as a metrics reader's collection would. */
  public void collect() {
    callbacks.forEach(Runnable::run);
  }

  @Override
  public Map<String, Boolean> getEnabledMetrics() {
    return enabledMetrics;
  }

  @Override
  public Set<String> getOptionalLabels() {
    return Set.of();
  }

  @Override
  public int getMeasuresSize() {
    return measures;
  }

  @Override
  public void updateMeasures(List<io.grpc.MetricInstrument> instruments) {
    measures = instruments.size();
  }

  @Override
  public void addLongCounter(
      io.grpc.LongCounterMetricInstrument instrument,
      long value,
      List<String> labels,
      List<String> optionalLabels) {
    record(instrument, value, labels, optionalLabels);
  }

  @Override
  public void addLongUpDownCounter(
      io.grpc.LongUpDownCounterMetricInstrument instrument,
      long value,
      List<String> labels,
      List<String> optionalLabels) {
    record(instrument, value, labels, optionalLabels);
  }

  @Override
  public void recordDoubleHistogram(
      io.grpc.DoubleHistogramMetricInstrument instrument,
      double value,
      List<String> labels,
      List<String> optionalLabels) {
    record(instrument, value, labels, optionalLabels);
  }

  @Override
  public void recordLongGauge(
      io.grpc.LongGaugeMetricInstrument instrument,
      long value,
      List<String> labels,
      List<String> optionalLabels) {
    record(instrument, value, labels, optionalLabels);
  }

  @Override
  public Registration registerBatchCallback(
      Runnable callback, io.grpc.CallbackMetricInstrument... instruments) {
    callbacks.add(callback);
    return () -> callbacks.remove(callback);
  }

  private void record(
      io.grpc.MetricInstrument instrument,
      Object value,
      List<String> labels,
      List<String> optionalLabels) {
    instruments.add(instrument);
    if (instrument.getIndex() >= measures) {
      recordings.add("unmeasured " + instrument.getName());
      return;
    }
    recordings.add(instrument.getName() + " " + value + " " + labels + " " + optionalLabels);
  }
}
