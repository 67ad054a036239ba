package dev.tern.xds.internal.lb;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Provides {@code cluster_impl_experimental}, drawing drops with ThreadLocalRandom. Stateless;
 * thread-safe.
 */
public final class ClusterImplProvider extends XdsBalancerProvider {
  static final String NAME = "cluster_impl_experimental";

  /** For ServiceLoader. */
  public ClusterImplProvider() {
    super(
        NAME,
        helper ->
            new ClusterImplBalancer(helper, bound -> ThreadLocalRandom.current().nextLong(bound)),
        ClusterImplConfig::parse);
  }
}
