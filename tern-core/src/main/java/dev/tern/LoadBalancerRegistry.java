package dev.tern;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * The {@link LoadBalancerProvider}s a channel chooses its policy from by name. The default registry
 * holds what {@link ServiceLoader} finds (Tern's {@code pick_first}, {@code round_robin} and {@code
 * least_request}) plus those {@link #register registered}.
 *
 * <p>Thread-safe.
 */
public final class LoadBalancerRegistry {
  private static LoadBalancerRegistry defaultRegistry;

  private final List<LoadBalancerProvider> providers = new ArrayList<>();

  /** An empty registry; add providers with {@link #register}. */
  public LoadBalancerRegistry() {}

  /** The process-wide registry, filled by {@link ServiceLoader} on first use. */
  public static synchronized LoadBalancerRegistry getDefaultRegistry() {
    if (defaultRegistry == null) {
      LoadBalancerRegistry registry = new LoadBalancerRegistry();
      for (LoadBalancerProvider provider :
          ServiceLoader.load(
              LoadBalancerProvider.class, LoadBalancerProvider.class.getClassLoader())) {
        registry.register(provider);
      }
      defaultRegistry = registry;
    }
    return defaultRegistry;
  }

  /**
   * Adds {@code provider}; while it is unavailable it is ignored.
   *
   * @throws IllegalArgumentException if its policy name is empty
   */
  public synchronized void register(LoadBalancerProvider provider) {
    Objects.requireNonNull(provider, "provider");
    String name = Objects.requireNonNull(provider.getPolicyName(), "provider.getPolicyName()");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("provider policy name must not be empty");
    }
    providers.add(provider);
  }

  /** Removes {@code provider} (no effect if it is not registered). */
  public synchronized void deregister(LoadBalancerProvider provider) {
    providers.remove(provider);
  }

  /** The available provider of {@code policy} with the highest priority, or null if none. */
  public synchronized LoadBalancerProvider getProvider(String policy) {
    Objects.requireNonNull(policy, "policy");
    LoadBalancerProvider best = null;
    for (LoadBalancerProvider provider : providers) {
      if (provider.getPolicyName().equals(policy)
          && provider.isAvailable()
          && (best == null || provider.getPriority() > best.getPriority())) {
        best = provider;
      }
    }
    return best;
  }

  /** The names of the available policies, sorted (for error messages). */
  public synchronized List<String> policyNames() {
    TreeSet<String> names = new TreeSet<>();
    for (LoadBalancerProvider provider : providers) {
      if (provider.isAvailable()) {
        names.add(provider.getPolicyName());
      }
    }
    return List.copyOf(names);
  }
}
