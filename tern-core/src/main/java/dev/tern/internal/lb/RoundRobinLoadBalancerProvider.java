package dev.tern.internal.lb;

import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import java.util.Random;

/** Provides {@code round_robin}. Stateless; thread-safe. */
public final class RoundRobinLoadBalancerProvider extends LoadBalancerProvider {
  /** For {@link java.util.ServiceLoader}. */
  public RoundRobinLoadBalancerProvider() {}

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public int getPriority() {
    return 5;
  }

  @Override
  public String getPolicyName() {
    return "round_robin";
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    return new RoundRobinLoadBalancer(helper, new Random());
  }
}
