package dev.tern;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The {@link LoadBalancerProvider}s a channel chooses its policy from by name. The default registry
 * holds what {@link ServiceLoader} finds (Tern's {@code pick_first}, {@code round_robin} and {@code
 * least_request}) plus those {@link #register registered}. A channel uses the default registry
 * unless its builder names another ({@link ManagedChannelBuilder#loadBalancerRegistry}).
 *
 * <p>A registry made with {@link #LoadBalancerRegistry(LoadBalancerRegistry, Function)} looks a
 * policy up in its own providers, then in its parent, then asks its fallback: a lookup by name into
 * providers that live elsewhere (the grpc-java bridge adapts the policies an application registered
 * in grpc-java's registry this way, for the names Tern has no policy of its own for).
 *
 * <p>Thread-safe. The parent and the fallback are asked without this registry's lock held.
 */
public final class LoadBalancerRegistry {
  private static LoadBalancerRegistry defaultRegistry;

  private final List<LoadBalancerProvider> providers = new ArrayList<>();
  private final LoadBalancerRegistry parent;
  private final Function<String, LoadBalancerProvider> fallback;

  /** An empty registry; add providers with {@link #register}. */
  public LoadBalancerRegistry() {
    this.parent = null;
    this.fallback = null;
  }

  /**
   * A registry that looks a policy up in its own providers ({@link #register}), then in {@code
   * parent}, and, if neither has an available provider of it, asks {@code fallback}. The fallback
   * returns a provider of the policy it was asked for, or null; an unavailable one, or one of
   * another policy, counts as none. It must be thread-safe and fast: channels ask it when they
   * parse a service config and when they switch policies. {@link #policyNames()} lists the own and
   * the parent's policies, not the fallback's, which it cannot list.
   *
   * @param parent the registry asked second, usually {@link #getDefaultRegistry()}
   * @param fallback asked last, with the policy's name
   */
  public LoadBalancerRegistry(
      LoadBalancerRegistry parent, Function<String, LoadBalancerProvider> fallback) {
    this.parent = Objects.requireNonNull(parent, "parent");
    this.fallback = Objects.requireNonNull(fallback, "fallback");
  }

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

  /**
   * The available provider of {@code policy} with the highest priority, or null if none: this
   * registry's own, else its parent's, else its fallback's.
   */
  public LoadBalancerProvider getProvider(String policy) {
    Objects.requireNonNull(policy, "policy");
    LoadBalancerProvider own = ownProvider(policy);
    if (own != null || parent == null) {
      return own;
    }
    LoadBalancerProvider inherited = parent.getProvider(policy);
    if (inherited != null) {
      return inherited;
    }
    LoadBalancerProvider found = fallback.apply(policy);
    return found != null && policy.equals(found.getPolicyName()) && found.isAvailable()
        ? found
        : null;
  }

  private synchronized LoadBalancerProvider ownProvider(String policy) {
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

  /**
   * The names of the available policies, own and the parent's, sorted (for error messages); not
   * those only the fallback knows.
   */
  public List<String> policyNames() {
    TreeSet<String> names = new TreeSet<>(ownPolicyNames());
    if (parent != null) {
      names.addAll(parent.policyNames());
    }
    return List.copyOf(names);
  }

  private synchronized List<String> ownPolicyNames() {
    List<String> names = new ArrayList<>();
    for (LoadBalancerProvider provider : providers) {
      if (provider.isAvailable()) {
        names.add(provider.getPolicyName());
      }
    }
    return names;
  }
}
