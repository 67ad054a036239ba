package dev.tern.internal.channel;

import dev.tern.MetricInstrument;
import dev.tern.MetricRecorder;
import dev.tern.MetricSink;
import java.util.ArrayList;
import java.util.List;

/** A {@link MetricSink} that keeps every recording as a line of text, in order. Thread-safe. */
final class RecordingMetricSink implements MetricSink {
  private final List<String> recordings = new ArrayList<>();

  /** {@code name value labels optionalLabels}, e.g. {@code grpc.x 1 [t] [a, b]}, oldest first. */
  synchronized List<String> recordings() {
    return List.copyOf(recordings);
  }

  synchronized List<String> recordingsOf(MetricInstrument instrument) {
    return recordings.stream().filter(r -> r.startsWith(instrument.name() + " ")).toList();
  }

  private synchronized void add(
      MetricInstrument instrument, Object value, List<String> labels, List<String> optional) {
    recordings.add(instrument.name() + " " + value + " " + labels + " " + optional);
  }

  @Override
  public void addLongCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optional) {
    add(instrument, value, labels, optional);
  }

  @Override
  public void addLongUpDownCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optional) {
    add(instrument, value, labels, optional);
  }

  @Override
  public void recordDoubleHistogram(
      MetricInstrument instrument, double value, List<String> labels, List<String> optional) {
    add(instrument, value, labels, optional);
  }

  @Override
  public MetricRecorder.Registration registerBatchCallback(
      MetricRecorder.BatchCallback callback, List<MetricInstrument> gauges) {
    throw new UnsupportedOperationException("no gauges in these tests");
  }
}
