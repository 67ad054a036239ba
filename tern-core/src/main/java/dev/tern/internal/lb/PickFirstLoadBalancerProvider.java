package dev.tern.internal.lb;

import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import java.util.Map;
import java.util.Random;

/** Provides {@code pick_first}, the default policy. Stateless; thread-safe. */
public final class PickFirstLoadBalancerProvider extends LoadBalancerProvider {
  /** For {@link java.util.ServiceLoader}. */
  public PickFirstLoadBalancerProvider() {}

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
    return "pick_first";
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    return new PickFirstLoadBalancer(helper, new Random());
  }

  /** Accepts {@code {}} and {@code {"shuffleAddressList": true|false}}. */
  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    boolean shuffle = false;
    if (rawConfig != null) {
      for (Map.Entry<String, ?> field : rawConfig.entrySet()) {
        if (!field.getKey().equals("shuffleAddressList")) {
          return ConfigOrError.fromError(
              Status.INVALID_ARGUMENT.withDescription(
                  "pick_first config has unknown field '" + field.getKey() + "'"));
        }
        if (!(field.getValue() instanceof Boolean)) {
          return ConfigOrError.fromError(
              Status.INVALID_ARGUMENT.withDescription(
                  "pick_first shuffleAddressList must be true or false, was " + field.getValue()));
        }
        shuffle = (Boolean) field.getValue();
      }
    }
    return ConfigOrError.fromConfig(new PickFirstConfig(shuffle));
  }
}
