package dev.tern.internal.lb;

import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import java.util.Map;

/**
 * Provides {@code least_request}; its configuration is {@code {"choiceCount": N}}, N from 2 to 10
 * (larger values are capped at 10, as gRFC A48 says); other fields are ignored, for configs written
 * for newer clients. Stateless; thread-safe.
 */
public final class LeastRequestLoadBalancerProvider extends LoadBalancerProvider {
  static final int DEFAULT_CHOICE_COUNT = 2;
  static final int MAX_CHOICE_COUNT = 10;

  /** For {@link java.util.ServiceLoader}. */
  public LeastRequestLoadBalancerProvider() {}

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
    return "least_request";
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    return new LeastRequestLoadBalancer(helper);
  }

  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    int choiceCount = DEFAULT_CHOICE_COUNT;
    Object value = rawConfig == null ? null : rawConfig.get("choiceCount");
    if (value != null) {
      if (!(value instanceof Number number)
          || number.doubleValue() != Math.rint(number.doubleValue())
          || number.doubleValue() < DEFAULT_CHOICE_COUNT) {
        return ConfigOrError.fromError(
            Status.INVALID_ARGUMENT.withDescription(
                "least_request choiceCount must be an integer >= 2, was " + value));
      }
      choiceCount = (int) Math.min(MAX_CHOICE_COUNT, number.doubleValue());
    }
    return ConfigOrError.fromConfig(new LeastRequestConfig(choiceCount));
  }
}
