package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import java.util.Map;
import java.util.function.Function;

/**
 * What the providers of this package share: available unless overridden, priority 5, and a config
 * parser whose {@link IllegalArgumentException} (naming the policy and field) becomes
 * INVALID_ARGUMENT. Stateless; thread-safe.
 */
abstract class XdsBalancerProvider extends LoadBalancerProvider {
  private final String name;
  private final Function<LoadBalancer.Helper, LoadBalancer> factory;
  private final Function<Map<String, ?>, Object> parser;

  XdsBalancerProvider(
      String name,
      Function<LoadBalancer.Helper, LoadBalancer> factory,
      Function<Map<String, ?>, Object> parser) {
    this.name = name;
    this.factory = factory;
    this.parser = parser;
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public final int getPriority() {
    return 5;
  }

  @Override
  public final String getPolicyName() {
    return name;
  }

  @Override
  public final LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    return factory.apply(helper);
  }

  @Override
  public final ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    try {
      return ConfigOrError.fromConfig(parser.apply(rawConfig));
    } catch (IllegalArgumentException e) {
      return ConfigOrError.fromError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
    }
  }
}
