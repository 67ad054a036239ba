package dev.tern.internal.config;

import java.util.Map;
import java.util.Objects;

/**
 * A parsed, checked service config: the per-method settings, retry throttling, the chosen
 * load-balancing policy and the health-check service. Made by {@link ServiceConfigParser}.
 *
 * <p>Two configs are equal when the maps they were parsed from are, so a channel can tell whether a
 * new resolution changed its config.
 *
 * <p>Immutable; thread-safe.
 */
public final class ServiceConfig {
  /** The config of a channel that has none: no method configs, no policy, no throttling. */
  public static final ServiceConfig EMPTY =
      new ServiceConfig(Map.of(), Map.of(), Map.of(), null, null, null, null, null);

  private final Map<String, ?> raw;
  private final Map<String, MethodConfig> byMethod;
  private final Map<String, MethodConfig> byService;
  private final MethodConfig defaultMethodConfig;
  private final RetryThrottlingPolicy retryThrottling;
  private final String loadBalancingPolicyName;
  private final Object loadBalancingPolicyConfig;
  private final String healthCheckServiceName;

  /**
   * Assembles a config whose parts are already checked.
   *
   * @param byMethod entries naming a method, by full method name ({@code "service/method"})
   * @param byService entries naming a whole service, by service name
   * @param defaultMethodConfig the entry for everything else, or null
   */
  ServiceConfig(
      Map<String, ?> raw,
      Map<String, MethodConfig> byMethod,
      Map<String, MethodConfig> byService,
      MethodConfig defaultMethodConfig,
      RetryThrottlingPolicy retryThrottling,
      String loadBalancingPolicyName,
      Object loadBalancingPolicyConfig,
      String healthCheckServiceName) {
    this.raw = Objects.requireNonNull(raw, "raw");
    this.byMethod = Map.copyOf(byMethod);
    this.byService = Map.copyOf(byService);
    this.defaultMethodConfig = defaultMethodConfig;
    this.retryThrottling = retryThrottling;
    this.loadBalancingPolicyName = loadBalancingPolicyName;
    this.loadBalancingPolicyConfig = loadBalancingPolicyConfig;
    this.healthCheckServiceName = healthCheckServiceName;
  }

  /**
   * The settings for a method: the entry naming exactly that method, else the one naming its
   * service, else the default entry (named {@code {}} or {@code {"service": ""}}), else null.
   *
   * @param fullMethodName {@code "package.Service/Method"}
   */
  public MethodConfig methodConfig(String fullMethodName) {
    MethodConfig config = byMethod.get(fullMethodName);
    if (config != null) {
      return config;
    }
    int slash = fullMethodName.lastIndexOf('/');
    if (slash >= 0 && !byService.isEmpty()) {
      config = byService.get(fullMethodName.substring(0, slash));
      if (config != null) {
        return config;
      }
    }
    return defaultMethodConfig;
  }

  /**
   * {@link #methodConfig(String)} for a method whose service name is known (as {@code
   * MethodDescriptor} keeps it), so the lookup allocates nothing.
   */
  public MethodConfig methodConfig(String fullMethodName, String serviceName) {
    MethodConfig config = byMethod.get(fullMethodName);
    if (config == null && serviceName != null) {
      config = byService.get(serviceName);
    }
    return config != null ? config : defaultMethodConfig;
  }

  /** Whether any {@code methodConfig} entry exists, so calls need to look one up. */
  public boolean hasMethodConfigs() {
    return defaultMethodConfig != null || !byMethod.isEmpty() || !byService.isEmpty();
  }

  /** The channel-wide retry throttling, or null if retries and hedges are not throttled. */
  public RetryThrottlingPolicy retryThrottling() {
    return retryThrottling;
  }

  /** The chosen load-balancing policy, e.g. {@code "round_robin"}, or null if none is named. */
  public String loadBalancingPolicyName() {
    return loadBalancingPolicyName;
  }

  /**
   * The chosen policy's configuration, as its provider parsed it, or null if no policy is named.
   */
  public Object loadBalancingPolicyConfig() {
    return loadBalancingPolicyConfig;
  }

  /** The service whose health the channel should watch ({@code healthCheckConfig}), or null. */
  public String healthCheckServiceName() {
    return healthCheckServiceName;
  }

  /** The unmodifiable map this config was parsed from. */
  public Map<String, ?> raw() {
    return raw;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ServiceConfig that && raw.equals(that.raw);
  }

  @Override
  public int hashCode() {
    return raw.hashCode();
  }

  @Override
  public String toString() {
    return "ServiceConfig" + raw;
  }
}
