package dev.tern.xds.internal.lb;

import dev.tern.NameResolverRegistry;

/**
 * Provides {@code cluster_resolver_experimental}, resolving LOGICAL_DNS clusters with the default
 * NameResolverRegistry. Stateless; thread-safe.
 */
public final class ClusterResolverProvider extends XdsBalancerProvider {
  static final String NAME = "cluster_resolver_experimental";

  /** For ServiceLoader. */
  public ClusterResolverProvider() {
    super(
        NAME,
        helper -> new ClusterResolverBalancer(helper, NameResolverRegistry.getDefaultRegistry()),
        ClusterResolverConfig::parse);
  }
}
