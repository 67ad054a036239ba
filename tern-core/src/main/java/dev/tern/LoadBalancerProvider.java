package dev.tern;

import java.util.Map;

/**
 * Creates {@link LoadBalancer}s of one policy ({@code pick_first}, {@code round_robin}, ...).
 * Providers are found through {@link java.util.ServiceLoader} (listed in {@code
 * META-INF/services/dev.tern.LoadBalancerProvider}) or {@link LoadBalancerRegistry#register
 * registered} by the application. Implementations must be thread-safe.
 */
public abstract class LoadBalancerProvider {
  /** For subclasses. */
  protected LoadBalancerProvider() {}

  /** Whether the policy can work here. */
  public abstract boolean isAvailable();

  /** Among available providers of one policy name, the highest wins; 5 is the norm, 0..10. */
  public abstract int getPriority();

  /** The policy's name as service configs spell it, e.g. {@code "round_robin"}. */
  public abstract String getPolicyName();

  /** A new balancer for one channel, working through {@code helper}. */
  public abstract LoadBalancer newLoadBalancer(LoadBalancer.Helper helper);

  /**
   * Parses the policy's JSON configuration (from a service config's {@code loadBalancingConfig});
   * the result reaches the balancer as {@link
   * LoadBalancer.ResolvedAddresses#getLoadBalancingPolicyConfig()}. The default accepts only an
   * empty configuration.
   *
   * @param rawConfig the JSON object, as maps, lists, strings, doubles and booleans
   */
  public NameResolver.ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    if (rawConfig != null && !rawConfig.isEmpty()) {
      return NameResolver.ConfigOrError.fromError(
          Status.INVALID_ARGUMENT.withDescription(
              getPolicyName() + " takes no configuration, got " + rawConfig.keySet()));
    }
    return NameResolver.ConfigOrError.fromConfig(Map.of());
  }

  @Override
  public String toString() {
    return getClass().getSimpleName()
        + "{policy="
        + getPolicyName()
        + ", priority="
        + getPriority()
        + "}";
  }
}
