package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancer;

/**
 * Provides {@code weighted_round_robin} (gRFC A58), usable from a plain service config as from a
 * CDS cluster's {@code load_balancing_policy}. Always available: grpc-java has no switch for it.
 * Stateless; thread-safe.
 */
public final class WeightedRoundRobinProvider extends XdsBalancerProvider {
  static final String NAME = "weighted_round_robin";

  /** For ServiceLoader. */
  public WeightedRoundRobinProvider() {
    super(NAME, WeightedRoundRobinProvider::newBalancer, WeightedRoundRobinConfig::parse);
  }

  private static LoadBalancer newBalancer(LoadBalancer.Helper helper) {
    return new WeightedRoundRobinBalancer(helper, System::nanoTime);
  }
}
