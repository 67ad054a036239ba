package dev.tern.xds.internal.resolver;

/**
 * Who keeps a cluster in the service config: the current route configuration (one reference for
 * every cluster it names) and each call that chose the cluster and has not yet committed (received
 * its response headers or closed). A cluster leaves the service config, and so the cluster manager,
 * only when both are gone (grpc-java's rule).
 */
interface ClusterRefs {
  /**
   * Takes a call's reference on {@code cluster}; false if the cluster is already on its way out of
   * the service config (its count reached zero), and the call must choose again with the newest
   * selector.
   */
  boolean retain(String cluster);

  /** Gives back a reference {@link #retain} took. Thread-safe. */
  void release(String cluster);

  /**
   * The newest selector the channel has taken, for a call whose cluster was released under it; null
   * before the first.
   */
  RoutingConfigSelector latest();
}
