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

  /**
   * Reads {@code {"shuffleAddressList": true|false}}; other fields are ignored, so a config written
   * for a newer client still works here (gRFC A62).
   */
  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    boolean shuffle = false;
    Object value = rawConfig == null ? null : rawConfig.get("shuffleAddressList");
    if (value != null) {
      if (!(value instanceof Boolean)) {
        return ConfigOrError.fromError(
            Status.INVALID_ARGUMENT.withDescription(
                "pick_first shuffleAddressList must be true or false, was " + value));
      }
      shuffle = (Boolean) value;
    }
    return ConfigOrError.fromConfig(new PickFirstConfig(shuffle));
  }
}
