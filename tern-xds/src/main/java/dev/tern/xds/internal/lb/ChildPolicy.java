package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancerProvider;
import dev.tern.LoadBalancerRegistry;
import dev.tern.NameResolver.ConfigOrError;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A child balancer's policy: its provider and its parsed config, chosen from a {@code
 * loadBalancingConfig}-style list ({@code [{"round_robin": {}}, ...]}: the first entry whose policy
 * is registered). Immutable; thread-safe.
 */
record ChildPolicy(LoadBalancerProvider provider, Object config) {
  ChildPolicy {
    Objects.requireNonNull(provider, "provider");
  }

  /** The child policy registered under {@code name}, with its config parsed from {@code json}. */
  static ChildPolicy of(String name, Map<String, ?> json) {
    LoadBalancerProvider provider = LoadBalancerRegistry.getDefaultRegistry().getProvider(name);
    if (provider == null) {
      throw new IllegalArgumentException("no load balancer registered for policy " + name);
    }
    ConfigOrError parsed = provider.parseLoadBalancingPolicyConfig(json == null ? Map.of() : json);
    if (parsed.getError() != null) {
      throw new IllegalArgumentException(name + " config: " + parsed.getError().getDescription());
    }
    return new ChildPolicy(provider, parsed.getConfig());
  }

  /** The first entry of {@code list} whose policy is registered. */
  static ChildPolicy select(JsonConfig owner, String field, List<?> list) {
    if (list.isEmpty()) {
      throw owner.error(field, "missing or empty");
    }
    for (Object entry : list) {
      Map<String, ?> choice = owner.asObject(field + "[]", entry);
      if (choice.size() != 1) {
        throw owner.error(field, "each entry must have exactly one policy, was " + choice.keySet());
      }
      Map.Entry<String, ?> only = choice.entrySet().iterator().next();
      if (LoadBalancerRegistry.getDefaultRegistry().getProvider(only.getKey()) != null) {
        return of(only.getKey(), owner.asObject(field + "." + only.getKey(), only.getValue()));
      }
    }
    throw owner.error(field, "no registered policy among " + list);
  }

  String name() {
    return provider.getPolicyName();
  }
}
