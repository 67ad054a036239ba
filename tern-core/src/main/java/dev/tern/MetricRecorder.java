package dev.tern;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a channel's components record their non-per-call metrics into (gRFC A79's recorder): the
 * channel's {@link MetricSink}s behind one object, given to balancers by {@link
 * LoadBalancer.Helper#getMetricRecorder()}. A channel without sinks gives a recorder with no sinks,
 * which does nothing; {@link #isEmpty()} lets a component skip building its label values then.
 *
 * <p>Each recording names a {@link MetricInstrument} and gives one value per required label key and
 * one per optional label key, in the instrument's order.
 *
 * <p>Immutable; thread-safe.
 */
public final class MetricRecorder {
  private static final MetricRecorder NONE = new MetricRecorder("", List.of());

  private final String target;
  private final MetricSink[] sinks;

  private MetricRecorder(String target, List<MetricSink> sinks) {
    this.target = target;
    this.sinks = sinks.toArray(new MetricSink[0]);
  }

  /** A recorder with no sinks. */
  public static MetricRecorder none() {
    return NONE;
  }

  /**
   * A recorder for the channel whose target is {@code target} (what {@code grpc.target} says), fed
   * to {@code sinks}.
   */
  public static MetricRecorder of(String target, List<MetricSink> sinks) {
    Objects.requireNonNull(target, "target");
    List<MetricSink> copy = List.copyOf(Objects.requireNonNull(sinks, "sinks"));
    return copy.isEmpty() ? NONE : new MetricRecorder(target, copy);
  }

  /**
   * The channel's target in the form A66's {@code grpc.target} label gives it, with its scheme
   * ({@code dns:///orders.internal:443}); "" when there is no sink.
   */
  public String target() {
    return target;
  }

  /** Whether there is no sink, so recording does nothing. */
  public boolean isEmpty() {
    return sinks.length == 0;
  }

  /** Adds {@code value} to a counter. */
  public void addLongCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optionalLabels) {
    check(instrument, MetricInstrument.Kind.LONG_COUNTER, labels, optionalLabels);
    if (value < 0) {
      throw new IllegalArgumentException("value must be >= 0 for a counter, was " + value);
    }
    for (MetricSink sink : sinks) {
      sink.addLongCounter(instrument, value, labels, optionalLabels);
    }
  }

  /** Adds {@code value} (negative to subtract) to an up-down counter. */
  public void addLongUpDownCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optionalLabels) {
    check(instrument, MetricInstrument.Kind.LONG_UP_DOWN_COUNTER, labels, optionalLabels);
    for (MetricSink sink : sinks) {
      sink.addLongUpDownCounter(instrument, value, labels, optionalLabels);
    }
  }

  /** Records {@code value} in a histogram. */
  public void recordDoubleHistogram(
      MetricInstrument instrument, double value, List<String> labels, List<String> optionalLabels) {
    check(instrument, MetricInstrument.Kind.DOUBLE_HISTOGRAM, labels, optionalLabels);
    for (MetricSink sink : sinks) {
      sink.recordDoubleHistogram(instrument, value, labels, optionalLabels);
    }
  }

  /**
   * Has each sink call {@code callback} when it collects {@code gauges}, until the returned
   * registration is closed (close it when the component shuts down).
   *
   * @throws IllegalArgumentException if a gauge is not a {@code LONG_GAUGE}
   */
  public Registration registerBatchCallback(BatchCallback callback, MetricInstrument... gauges) {
    Objects.requireNonNull(callback, "callback");
    List<MetricInstrument> list = List.of(gauges);
    for (MetricInstrument gauge : list) {
      if (gauge.kind() != MetricInstrument.Kind.LONG_GAUGE) {
        throw new IllegalArgumentException("gauges: " + gauge.name() + " is a " + gauge.kind());
      }
    }
    if (sinks.length == 0) {
      return () -> {};
    }
    List<Registration> registrations = new ArrayList<>(sinks.length);
    for (MetricSink sink : sinks) {
      registrations.add(sink.registerBatchCallback(callback, list));
    }
    return () -> registrations.forEach(Registration::close);
  }

  private static void check(
      MetricInstrument instrument,
      MetricInstrument.Kind kind,
      List<String> labels,
      List<String> optionalLabels) {
    if (instrument.kind() != kind) {
      throw new IllegalArgumentException(
          "instrument: " + instrument.name() + " is a " + instrument.kind() + ", not " + kind);
    }
    if (labels.size() != instrument.requiredLabelKeys().size()) {
      throw new IllegalArgumentException(
          "labels: " + instrument.name() + " takes " + instrument.requiredLabelKeys());
    }
    if (optionalLabels.size() != instrument.optionalLabelKeys().size()) {
      throw new IllegalArgumentException(
          "optionalLabels: " + instrument.name() + " takes " + instrument.optionalLabelKeys());
    }
  }

  @Override
  public String toString() {
    return "MetricRecorder{" + target + ", " + sinks.length + " sinks}";
  }

  /** A sink's hold on a callback; closing it stops the calls. Idempotent. */
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }

  /** Reports gauge values when a sink collects. */
  @FunctionalInterface
  public interface BatchCallback {
    /** Records the current values into {@code recorder}; runs on the sink's thread. */
    void collect(BatchRecorder recorder);
  }

  /** Takes gauge values during a {@link BatchCallback}. Not to be kept after the callback. */
  public interface BatchRecorder {
    /** Records the gauge's current value for these labels. */
    void recordLongGauge(
        MetricInstrument gauge, long value, List<String> labels, List<String> optionalLabels);
  }
}
