package dev.tern.xds.internal.lb;

import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.Subchannel;
import dev.tern.LoadBalancer.SubchannelPicker;
import dev.tern.MetricInstruments;
import dev.tern.Status;
import dev.tern.xds.XdsEndpoints.DropOverload;
import dev.tern.xds.XdsFeatures;
import dev.tern.xds.internal.lrs.ClusterLoadStats;
import dev.tern.xds.internal.lrs.LocalityLoadCounter;
import dev.tern.xds.internal.lrs.LrsLocality;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;

/**
 * Drops calls as EDS's {@code drop_overloads} say (each category with its own chance, in parts per
 * million), refuses calls beyond the cluster's {@code max_requests} in flight, and otherwise uses
 * the child's pick, counting the call while its stream is open. When the cluster reports load
 * ({@code stats} not null) it also counts each drop by category and each call into its endpoint's
 * locality. Names each pick's optional metric labels (gRFC A89's backend service, the cluster's
 * name, on every pick, drops included; A78's locality, the picked endpoint's, once the child picked
 * one) for the call's attempt tracers. Immutable; thread-safe if {@code random} is.
 */
final class ClusterImplPicker extends SubchannelPicker {
  /** GRPC_XDS_EXPERIMENTAL_CIRCUIT_BREAKING: whether max_requests applies. */
  private static final boolean CIRCUIT_BREAKING = XdsFeatures.current().circuitBreaking();

  private final ClusterImplConfig config;
  private final SubchannelPicker child;
  private final AtomicLong inFlight;
  private final LongUnaryOperator random;
  private final ClusterLoadStats stats;

  /**
   * @param stats where the cluster's load is counted, or null when it does not report load
   */
  ClusterImplPicker(
      ClusterImplConfig config,
      SubchannelPicker child,
      AtomicLong inFlight,
      LongUnaryOperator random,
      ClusterLoadStats stats) {
    this.config = config;
    this.child = child;
    this.inFlight = inFlight;
    this.random = random;
    this.stats = stats;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    args.addOptionalLabel(MetricInstruments.BACKEND_SERVICE, config.cluster());
    for (DropOverload drop : config.dropCategories()) {
      if (random.applyAsLong(1_000_000) < drop.perMillion()) {
        if (stats != null) {
          stats.recordDrop(drop.category());
        }
        return PickResult.withDrop(
            Status.UNAVAILABLE.withDescription("dropped by load balancer: " + drop.category()));
      }
    }
    PickResult result = child.pickSubchannel(args);
    if (result.getSubchannel() == null) {
      return result;
    }
    args.addOptionalLabel(MetricInstruments.LOCALITY, localityLabel(result.getSubchannel()));
    if (inFlight.get() >= config.maxConcurrentRequests() && CIRCUIT_BREAKING) {
      if (stats != null) {
        stats.recordUncategorizedDrop();
      }
      return PickResult.withDrop(
          Status.UNAVAILABLE.withDescription(
              "cluster "
                  + config.cluster()
                  + ": circuit breaker open, max_requests "
                  + config.maxConcurrentRequests()
                  + " calls in flight"));
    }
    LocalityLoadCounter load =
        stats == null ? null : stats.locality(locality(result.getSubchannel()));
    return PickResult.withSubchannel(
        result.getSubchannel(),
        InFlightTracer.factory(inFlight, load, result.getStreamTracerFactory()));
  }

  /** The locality EDS put on the subchannel's addresses, or null for none. */
  private static LrsLocality locality(Subchannel subchannel) {
    List<EquivalentAddressGroup> groups = subchannel.getAllAddresses();
    return groups.isEmpty() ? null : groups.get(0).getAttributes().get(LrsLocality.KEY);
  }

  /** gRFC A78's locality label EDS put on the subchannel's addresses, or "" for none. */
  private static String localityLabel(Subchannel subchannel) {
    List<EquivalentAddressGroup> groups = subchannel.getAllAddresses();
    String label =
        groups.isEmpty()
            ? null
            : groups.get(0).getAttributes().get(MetricInstruments.LOCALITY_ATTRIBUTE);
    return label == null ? "" : label;
  }

  @Override
  public String toString() {
    return "ClusterImplPicker{" + config.cluster() + ", " + child + "}";
  }
}
