package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.SubchannelPicker;
import dev.tern.Status;
import dev.tern.xds.XdsEndpoints.DropOverload;
import dev.tern.xds.XdsFeatures;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;

/**
 * Drops calls as EDS's {@code drop_overloads} say (each category with its own chance, in parts per
 * million), refuses calls beyond the cluster's {@code max_requests} in flight, and otherwise uses
 * the child's pick, counting the call while its stream is open. Immutable; thread-safe if {@code
 * random} is.
 */
final class ClusterImplPicker extends SubchannelPicker {
  /** GRPC_XDS_EXPERIMENTAL_CIRCUIT_BREAKING: whether max_requests applies. */
  private static final boolean CIRCUIT_BREAKING = XdsFeatures.current().circuitBreaking();

  private final ClusterImplConfig config;
  private final SubchannelPicker child;
  private final AtomicLong inFlight;
  private final LongUnaryOperator random;

  ClusterImplPicker(
      ClusterImplConfig config,
      SubchannelPicker child,
      AtomicLong inFlight,
      LongUnaryOperator random) {
    this.config = config;
    this.child = child;
    this.inFlight = inFlight;
    this.random = random;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    for (DropOverload drop : config.dropCategories()) {
      if (random.applyAsLong(1_000_000) < drop.perMillion()) {
        return PickResult.withDrop(
            Status.UNAVAILABLE.withDescription("dropped by load balancer: " + drop.category()));
      }
    }
    PickResult result = child.pickSubchannel(args);
    if (result.getSubchannel() == null) {
      return result;
    }
    if (inFlight.get() >= config.maxConcurrentRequests() && CIRCUIT_BREAKING) {
      return PickResult.withDrop(
          Status.UNAVAILABLE.withDescription(
              "cluster "
                  + config.cluster()
                  + ": circuit breaker open, max_requests "
                  + config.maxConcurrentRequests()
                  + " calls in flight"));
    }
    return PickResult.withSubchannel(
        result.getSubchannel(), InFlightTracer.factory(inFlight, result.getStreamTracerFactory()));
  }

  @Override
  public String toString() {
    return "ClusterImplPicker{" + config.cluster() + ", " + child + "}";
  }
}
