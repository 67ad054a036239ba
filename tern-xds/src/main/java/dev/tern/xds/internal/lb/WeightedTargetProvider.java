package dev.tern.xds.internal.lb;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Provides {@code weighted_target_experimental}, picking targets with ThreadLocalRandom. Stateless;
 * thread-safe.
 */
public final class WeightedTargetProvider extends XdsBalancerProvider {
  static final String NAME = "weighted_target_experimental";

  /** For ServiceLoader. */
  public WeightedTargetProvider() {
    super(
        NAME,
        helper ->
            new WeightedTargetBalancer(
                helper, bound -> ThreadLocalRandom.current().nextLong(bound)),
        WeightedTargetConfig::parse);
  }
}
