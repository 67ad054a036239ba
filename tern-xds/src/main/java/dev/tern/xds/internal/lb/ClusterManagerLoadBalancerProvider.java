package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.LoadBalancerRegistry;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code xds_cluster_manager_experimental}: config {@code {"childPolicy": {"<child name>":
 * [{"<policy>": {...}}, ...], ...}}}, each child's list a {@code loadBalancingConfig} list of which
 * the first registered policy is taken and parsed by its provider. Thread-safe.
 */
public final class ClusterManagerLoadBalancerProvider extends LoadBalancerProvider {
  /** The policy's name. */
  public static final String POLICY_NAME = "xds_cluster_manager_experimental";

  private final LoadBalancerRegistry registry;

  /**
   * The provider ServiceLoader makes: children from the default registry, looked up when a config
   * is parsed (not here: the default registry is being built when ServiceLoader makes this).
   */
  public ClusterManagerLoadBalancerProvider() {
    this(null);
  }

  /** A provider whose children come from {@code registry}, or the default one when null. */
  ClusterManagerLoadBalancerProvider(LoadBalancerRegistry registry) {
    this.registry = registry;
  }

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
    return POLICY_NAME;
  }

  @Override
  public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
    return new ClusterManagerLoadBalancer(helper);
  }

  @Override
  public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> rawConfig) {
    try {
      return ConfigOrError.fromConfig(parse(rawConfig));
    } catch (IllegalArgumentException e) {
      return ConfigOrError.fromError(
          Status.INVALID_ARGUMENT.withDescription(POLICY_NAME + ": " + e.getMessage()));
    }
  }

  private ClusterManagerConfig parse(Map<String, ?> raw) {
    Object childPolicy = raw == null ? null : raw.get("childPolicy");
    if (!(childPolicy instanceof Map<?, ?> children)) {
      throw new IllegalArgumentException("childPolicy: must be an object, was " + childPolicy);
    }
    Map<String, ClusterManagerConfig.Child> parsed = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : children.entrySet()) {
      String name = (String) e.getKey();
      String at = "childPolicy." + name;
      if (!(e.getValue() instanceof List<?> list) || list.isEmpty()) {
        throw new IllegalArgumentException(at + ": must be a non-empty list of policies");
      }
      List<String> asked = new ArrayList<>();
      ClusterManagerConfig.Child child = null;
      for (Object entry : list) {
        if (!(entry instanceof Map<?, ?> policy) || policy.size() != 1) {
          throw new IllegalArgumentException(
              at + ": each entry must be an object with exactly one field, the policy name");
        }
        String policyName = (String) policy.keySet().iterator().next();
        Object config = policy.get(policyName);
        if (!(config instanceof Map<?, ?>)) {
          throw new IllegalArgumentException(at + "." + policyName + ": must be an object");
        }
        LoadBalancerProvider provider =
            (registry != null ? registry : LoadBalancerRegistry.getDefaultRegistry())
                .getProvider(policyName);
        if (provider == null) {
          asked.add(policyName);
          continue;
        }
        @SuppressWarnings("unchecked")
        ConfigOrError childConfig =
            provider.parseLoadBalancingPolicyConfig((Map<String, ?>) config);
        if (childConfig.getError() != null) {
          throw new IllegalArgumentException(
              at + "." + policyName + ": " + childConfig.getError().getDescription());
        }
        child = new ClusterManagerConfig.Child(provider, childConfig.getConfig());
        break;
      }
      if (child == null) {
        throw new IllegalArgumentException(at + ": names no registered policy: asked for " + asked);
      }
      parsed.put(name, child);
    }
    return new ClusterManagerConfig(parsed);
  }
}
