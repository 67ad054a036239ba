package dev.tern;

import java.util.List;
import java.util.Objects;

/**
 * A metric that is not recorded per call (gRFC A79): a connection count of a subchannel, a weight
 * update of a balancer, a resource of the xDS client. Components record into it through the {@link
 * MetricRecorder} their channel gives them ({@link LoadBalancer.Helper#getMetricRecorder()}); a
 * {@link MetricSink}, such as tern-opentelemetry's, exports it. Made only by {@link
 * MetricInstrumentRegistry}, which gives each a dense {@link #index()} that sinks may use to find
 * their own instrument without hashing.
 *
 * <p>Label values are given in the order of {@link #requiredLabelKeys()} and {@link
 * #optionalLabelKeys()}; a sink records the optional ones only if its user asked for them.
 *
 * <p>Immutable; thread-safe.
 */
public final class MetricInstrument {
  /** What kind of instrument it is, and so which {@link MetricRecorder} method records it. */
  public enum Kind {
    /** A monotonic count of events: {@link MetricRecorder#addLongCounter}. */
    LONG_COUNTER,
    /** A count that goes up and down: {@link MetricRecorder#addLongUpDownCounter}. */
    LONG_UP_DOWN_COUNTER,
    /** A distribution of values: {@link MetricRecorder#recordDoubleHistogram}. */
    DOUBLE_HISTOGRAM,
    /** A value read when the sink collects: {@link MetricRecorder#registerBatchCallback}. */
    LONG_GAUGE
  }

  private final int index;
  private final Kind kind;
  private final String name;
  private final String description;
  private final String unit;
  private final List<String> requiredLabelKeys;
  private final List<String> optionalLabelKeys;
  private final boolean enabledByDefault;

  MetricInstrument(
      int index,
      Kind kind,
      String name,
      String description,
      String unit,
      List<String> requiredLabelKeys,
      List<String> optionalLabelKeys,
      boolean enabledByDefault) {
    this.index = index;
    this.kind = Objects.requireNonNull(kind, "kind");
    this.name = Objects.requireNonNull(name, "name");
    this.description = Objects.requireNonNull(description, "description");
    this.unit = Objects.requireNonNull(unit, "unit");
    this.requiredLabelKeys = List.copyOf(requiredLabelKeys);
    this.optionalLabelKeys = List.copyOf(optionalLabelKeys);
    this.enabledByDefault = enabledByDefault;
  }

  /** Its place in its registry: 0 for the first registered, then 1, 2, ... */
  public int index() {
    return index;
  }

  public Kind kind() {
    return kind;
  }

  /** Its name, as the gRFC that defines it spells it ({@code grpc.subchannel.disconnections}). */
  public String name() {
    return name;
  }

  public String description() {
    return description;
  }

  /** Its unit in UCUM, as OpenTelemetry writes it ({@code {connection}}, {@code s}). */
  public String unit() {
    return unit;
  }

  /** The labels every recording has, in order. */
  public List<String> requiredLabelKeys() {
    return requiredLabelKeys;
  }

  /** The labels a sink may add when its user asks for them by name, in order. */
  public List<String> optionalLabelKeys() {
    return optionalLabelKeys;
  }

  /**
   * Whether sinks record it unless told otherwise. The gRFCs' instruments start experimental and so
   * off: a user enables them by name.
   */
  public boolean enabledByDefault() {
    return enabledByDefault;
  }

  @Override
  public String toString() {
    return name + "{" + kind + ", " + unit + "}";
  }
}
