package dev.tern.grpcjava.internal.metrics;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Finds the grpc-java instrument a Tern instrument's recordings go to, by name, in grpc-java's
 * process-wide {@code io.grpc.MetricInstrumentRegistry}, where a name may be registered only once.
 *
 * <p>The order rule: grpc-java's own classes that register the names Tern records ({@link
 * #REGISTRANTS}) are loaded first, once per process, when they are on the class path; only a name
 * still missing after that is registered here, with Tern's kind and labels. No grpc-java class on
 * the class path can then register it later, so neither side's registration can fail on the
 * other's. A name grpc-java registered with another kind or other label keys is not matched: its
 * recordings are dropped, and one warning names it.
 *
 * <p>Thread-safe: matches are made under one lock (the registrants are loaded and names registered
 * only there) and then read from a concurrent map without it.
 */
final class GrpcJavaInstruments {
  private static final Logger logger = Logger.getLogger(GrpcJavaInstruments.class.getName());

  /**
   * grpc-java 1.79's classes that register, when they initialize, the instruments Tern records:
   * grpc-core's subchannel metrics (gRFC A94), grpc-xds's {@code weighted_round_robin} and xDS
   * client (A78). grpc-core's {@code pick_first} registers none in 1.79.
   */
  static final List<String> REGISTRANTS =
      List.of(
          "io.grpc.internal.SubchannelMetrics",
          "io.grpc.xds.WeightedRoundRobinLoadBalancer",
          "io.grpc.xds.XdsClientMetricReporterImpl");

  private static final Object lock = new Object();

  @GuardedBy("lock")
  private static boolean registrantsLoaded;

  // Written under lock; InstrumentMatch.NONE for an instrument grpc-java's sinks do not get.
  private static final Map<dev.tern.MetricInstrument, InstrumentMatch> matches =
      new ConcurrentHashMap<>();

  private GrpcJavaInstruments() {}

  /** The grpc-java twin of {@code instrument}, or null if grpc-java has an incompatible one. */
  static InstrumentMatch find(dev.tern.MetricInstrument instrument) {
    InstrumentMatch match = matches.get(instrument);
    if (match == null) {
      synchronized (lock) {
        match = matches.get(instrument);
        if (match == null) {
          match = match(instrument);
          matches.put(instrument, match);
        }
      }
    }
    return match == InstrumentMatch.NONE ? null : match;
  }

  @GuardedBy("lock")
  private static InstrumentMatch match(dev.tern.MetricInstrument instrument) {
    loadRegistrants();
    io.grpc.MetricInstrumentRegistry registry =
        io.grpc.MetricInstrumentRegistry.getDefaultRegistry();
    io.grpc.MetricInstrument grpcJava = find(registry, instrument.name());
    if (grpcJava == null) {
      try {
        grpcJava = register(registry, instrument);
      } catch (IllegalStateException e) {
        // Registered meanwhile by a class we did not load (another class loader's grpc-java).
        grpcJava = find(registry, instrument.name());
      }
    }
    InstrumentMatch match =
        grpcJava != null && sameKind(instrument.kind(), grpcJava)
            ? InstrumentMatch.of(instrument, grpcJava)
            : null;
    if (match == null) {
      logger.warning(
          "grpc-java metric sinks will not get "
              + instrument.name()
              + ": Tern records it as a "
              + instrument.kind()
              + " with labels "
              + instrument.requiredLabelKeys()
              + " and optional labels "
              + instrument.optionalLabelKeys()
              + ", grpc-java has "
              + (grpcJava == null
                  ? "no instrument of that name it could register"
                  : "a "
                      + grpcJava.getClass().getSimpleName()
                      + " with labels "
                      + grpcJava.getRequiredLabelKeys()
                      + " and optional labels "
                      + grpcJava.getOptionalLabelKeys()));
      return InstrumentMatch.NONE;
    }
    return match;
  }

  @GuardedBy("lock")
  private static void loadRegistrants() {
    if (registrantsLoaded) {
      return;
    }
    registrantsLoaded = true;
    ClassLoader loader = io.grpc.MetricInstrumentRegistry.class.getClassLoader();
    for (String registrant : REGISTRANTS) {
      try {
        Class.forName(registrant, true, loader);
      } catch (ClassNotFoundException e) {
        // Not on the class path, so it can never register its names: the bridge may.
      } catch (LinkageError e) {
        logger.log(Level.WARNING, "Could not load grpc-java's " + registrant, e);
      }
    }
  }

  private static io.grpc.MetricInstrument find(
      io.grpc.MetricInstrumentRegistry registry, String name) {
    for (io.grpc.MetricInstrument instrument : registry.getMetricInstruments()) {
      if (instrument.getName().equals(name)) {
        return instrument;
      }
    }
    return null;
  }

  private static io.grpc.MetricInstrument register(
      io.grpc.MetricInstrumentRegistry registry, dev.tern.MetricInstrument instrument) {
    String name = instrument.name();
    String description = instrument.description();
    String unit = instrument.unit();
    List<String> labels = instrument.requiredLabelKeys();
    List<String> optional = instrument.optionalLabelKeys();
    boolean enabled = instrument.enabledByDefault();
    return switch (instrument.kind()) {
      case LONG_COUNTER ->
          registry.registerLongCounter(name, description, unit, labels, optional, enabled);
      case LONG_UP_DOWN_COUNTER ->
          registry.registerLongUpDownCounter(name, description, unit, labels, optional, enabled);
      // Tern's histograms leave their buckets to the sink, as an empty list asks grpc-java's.
      case DOUBLE_HISTOGRAM ->
          registry.registerDoubleHistogram(
              name, description, unit, List.of(), labels, optional, enabled);
      case LONG_GAUGE ->
          registry.registerLongGauge(name, description, unit, labels, optional, enabled);
    };
  }

  private static boolean sameKind(dev.tern.MetricInstrument.Kind kind, io.grpc.MetricInstrument i) {
    return switch (kind) {
      case LONG_COUNTER -> i instanceof io.grpc.LongCounterMetricInstrument;
      case LONG_UP_DOWN_COUNTER -> i instanceof io.grpc.LongUpDownCounterMetricInstrument;
      case DOUBLE_HISTOGRAM -> i instanceof io.grpc.DoubleHistogramMetricInstrument;
      case LONG_GAUGE -> i instanceof io.grpc.LongGaugeMetricInstrument;
    };
  }
}
