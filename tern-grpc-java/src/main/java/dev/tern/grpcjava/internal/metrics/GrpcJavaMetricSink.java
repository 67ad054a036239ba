package dev.tern.grpcjava.internal.metrics;

import dev.tern.MetricInstrument;
import dev.tern.MetricRecorder;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A grpc-java {@code io.grpc.MetricSink} (what {@code addMetricSink} on a bridged channel builder
 * gets, such as grpc-opentelemetry's) run as a Tern {@link dev.tern.MetricSink}: each recording of
 * a Tern instrument goes to the sink with the grpc-java instrument of the same name ({@link
 * GrpcJavaInstruments}), its label values in that instrument's order.
 *
 * <p>As grpc-java's own recorder does, it tells the sink of instruments registered since it last
 * sized its measures ({@code updateMeasures}) before recording one, and gives every optional label
 * value: the sink keeps those of its {@code getOptionalLabels()}. It drops at once the recordings
 * of an instrument the sink's {@code getEnabledMetrics()} (read once, when the sink is added) turns
 * off, or does not turn on when the instrument is off by default (every gRFC instrument is).
 *
 * <p>Thread-safe if the grpc-java sink is, as grpc-java asks of its sinks.
 */
public final class GrpcJavaMetricSink implements dev.tern.MetricSink {
  private final io.grpc.MetricSink sink;
  private final Map<String, Boolean> enabledMetrics;

  public GrpcJavaMetricSink(io.grpc.MetricSink sink) {
    this.sink = Objects.requireNonNull(sink, "metricSink");
    Map<String, Boolean> enabled = sink.getEnabledMetrics();
    this.enabledMetrics =
        Collections.unmodifiableMap(enabled == null ? Map.of() : new HashMap<>(enabled));
  }

  @Override
  public void addLongCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optionalLabels) {
    InstrumentMatch match = recorded(instrument);
    if (match != null) {
      sink.addLongCounter(
          (io.grpc.LongCounterMetricInstrument) match.instrument(),
          value,
          match.labels(labels),
          match.optionalLabels(optionalLabels));
    }
  }

  @Override
  public void addLongUpDownCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optionalLabels) {
    InstrumentMatch match = recorded(instrument);
    if (match != null) {
      sink.addLongUpDownCounter(
          (io.grpc.LongUpDownCounterMetricInstrument) match.instrument(),
          value,
          match.labels(labels),
          match.optionalLabels(optionalLabels));
    }
  }

  @Override
  public void recordDoubleHistogram(
      MetricInstrument instrument, double value, List<String> labels, List<String> optionalLabels) {
    InstrumentMatch match = recorded(instrument);
    if (match != null) {
      sink.recordDoubleHistogram(
          (io.grpc.DoubleHistogramMetricInstrument) match.instrument(),
          value,
          match.labels(labels),
          match.optionalLabels(optionalLabels));
    }
  }

  /**
   * Registers with the grpc-java sink a callback for the gauges it records; when the sink collects
   * them, {@code callback}'s values go to it as {@code recordLongGauge} calls (values of gauges not
   * registered here are dropped, as grpc-java's batch recorder drops them).
   */
  @Override
  public MetricRecorder.Registration registerBatchCallback(
      MetricRecorder.BatchCallback callback, List<MetricInstrument> gauges) {
    Map<MetricInstrument, InstrumentMatch> recorded = new LinkedHashMap<>();
    for (MetricInstrument gauge : gauges) {
      InstrumentMatch match = recorded(gauge);
      if (match != null) {
        recorded.put(gauge, match);
      }
    }
    if (recorded.isEmpty()) {
      return () -> {};
    }
    Map<MetricInstrument, InstrumentMatch> matches = Map.copyOf(recorded);
    MetricRecorder.BatchRecorder recorder =
        (gauge, value, labels, optionalLabels) -> {
          InstrumentMatch match = matches.get(gauge);
          if (match != null) {
            sink.recordLongGauge(
                (io.grpc.LongGaugeMetricInstrument) match.instrument(),
                value,
                match.labels(labels),
                match.optionalLabels(optionalLabels));
          }
        };
    io.grpc.CallbackMetricInstrument[] instruments =
        recorded.values().stream()
            .map(match -> (io.grpc.CallbackMetricInstrument) match.instrument())
            .toArray(io.grpc.CallbackMetricInstrument[]::new);
    io.grpc.MetricSink.Registration registration =
        sink.registerBatchCallback(() -> callback.collect(recorder), instruments);
    return registration == null ? () -> {} : registration::close;
  }

  /** The grpc-java twin of {@code instrument} if the sink records it, else null. */
  private InstrumentMatch recorded(MetricInstrument instrument) {
    InstrumentMatch match = GrpcJavaInstruments.find(instrument);
    if (match == null) {
      return null;
    }
    io.grpc.MetricInstrument grpcJava = match.instrument();
    Boolean enabled = enabledMetrics.get(grpcJava.getName());
    if (!(enabled == null ? grpcJava.isEnableByDefault() : enabled)) {
      return null;
    }
    if (sink.getMeasuresSize() <= grpcJava.getIndex()) {
      sink.updateMeasures(
          io.grpc.MetricInstrumentRegistry.getDefaultRegistry().getMetricInstruments());
    }
    return match;
  }

  @Override
  public String toString() {
    return "GrpcJavaMetricSink{" + sink + "}";
  }
}
