package dev.tern.opentelemetry;

import dev.tern.MetricInstrument;
import dev.tern.MetricRecorder;
import dev.tern.MetricSink;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongUpDownCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import io.opentelemetry.api.metrics.ObservableMeasurement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Exports the non-per-call instruments of tern-core's {@code MetricInstrumentRegistry} (gRFC A79)
 * to an OpenTelemetry {@link Meter}: each enabled instrument becomes the OpenTelemetry instrument
 * of its kind, made on its first recording, with its name, description and unit; recordings of
 * instruments not enabled are dropped at once. Required labels are always attributes; optional ones
 * only when their key was enabled ({@code GrpcOpenTelemetry.Builder.addOptionalLabel}).
 *
 * <p>Thread-safe: the instruments are made once each in a concurrent map; OpenTelemetry's
 * instruments are thread-safe.
 */
final class OpenTelemetryMetricSink implements MetricSink {
  private final Meter meter;
  private final Set<String> enabled;
  private final Set<String> optionalLabels;
  private final Map<MetricInstrument, Object> instruments = new ConcurrentHashMap<>();

  OpenTelemetryMetricSink(Meter meter, Set<String> enabled, Set<String> optionalLabels) {
    this.meter = meter;
    this.enabled = Set.copyOf(enabled);
    this.optionalLabels = Set.copyOf(optionalLabels);
  }

  /** Whether this sink records {@code instrument} (it was enabled by name). */
  boolean records(MetricInstrument instrument) {
    return enabled.contains(instrument.name());
  }

  @Override
  public void addLongCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optional) {
    if (records(instrument)) {
      ((LongCounter) instrument(instrument)).add(value, attributes(instrument, labels, optional));
    }
  }

  @Override
  public void addLongUpDownCounter(
      MetricInstrument instrument, long value, List<String> labels, List<String> optional) {
    if (records(instrument)) {
      ((LongUpDownCounter) instrument(instrument))
          .add(value, attributes(instrument, labels, optional));
    }
  }

  @Override
  public void recordDoubleHistogram(
      MetricInstrument instrument, double value, List<String> labels, List<String> optional) {
    if (records(instrument)) {
      ((DoubleHistogram) instrument(instrument))
          .record(value, attributes(instrument, labels, optional));
    }
  }

  @Override
  public MetricRecorder.Registration registerBatchCallback(
      MetricRecorder.BatchCallback callback, List<MetricInstrument> gauges) {
    Map<MetricInstrument, ObservableLongMeasurement> observed = new HashMap<>();
    for (MetricInstrument gauge : gauges) {
      if (records(gauge)) {
        observed.put(gauge, (ObservableLongMeasurement) instrument(gauge));
      }
    }
    if (observed.isEmpty()) {
      return () -> {};
    }
    List<ObservableMeasurement> measurements = new ArrayList<>(observed.values());
    BatchCallback registration =
        meter.batchCallback(
            () ->
                callback.collect(
                    (gauge, value, labels, optional) -> {
                      ObservableLongMeasurement measurement = observed.get(gauge);
                      if (measurement != null) {
                        measurement.record(value, attributes(gauge, labels, optional));
                      }
                    }),
            measurements.get(0),
            measurements.subList(1, measurements.size()).toArray(new ObservableMeasurement[0]));
    return registration::close;
  }

  private Object instrument(MetricInstrument instrument) {
    return instruments.computeIfAbsent(instrument, this::create);
  }

  private Object create(MetricInstrument instrument) {
    String name = instrument.name();
    return switch (instrument.kind()) {
      case LONG_COUNTER ->
          meter
              .counterBuilder(name)
              .setDescription(instrument.description())
              .setUnit(instrument.unit())
              .build();
      case LONG_UP_DOWN_COUNTER ->
          meter
              .upDownCounterBuilder(name)
              .setDescription(instrument.description())
              .setUnit(instrument.unit())
              .build();
      case DOUBLE_HISTOGRAM ->
          meter
              .histogramBuilder(name)
              .setDescription(instrument.description())
              .setUnit(instrument.unit())
              .build();
      case LONG_GAUGE ->
          meter
              .gaugeBuilder(name)
              .setDescription(instrument.description())
              .setUnit(instrument.unit())
              .ofLongs()
              .buildObserver();
    };
  }

  private Attributes attributes(
      MetricInstrument instrument, List<String> labels, List<String> optional) {
    AttributesBuilder builder = Attributes.builder();
    List<String> keys = instrument.requiredLabelKeys();
    for (int i = 0; i < keys.size(); i++) {
      builder.put(keys.get(i), labels.get(i));
    }
    List<String> optionalKeys = instrument.optionalLabelKeys();
    for (int i = 0; i < optionalKeys.size(); i++) {
      if (optionalLabels.contains(optionalKeys.get(i))) {
        builder.put(optionalKeys.get(i), optional.get(i));
      }
    }
    return builder.build();
  }

  @Override
  public String toString() {
    return "OpenTelemetryMetricSink" + enabled;
  }
}
