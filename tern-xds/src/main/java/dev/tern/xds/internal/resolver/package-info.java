/**
 * The {@code xds:} name resolver (gRFC A27, A28, A31, A44, A47). Not API.
 *
 * <pre>
 * xds:///name --XdsNameResolverProvider (ServiceLoader)--&gt; XdsNameResolver
 *   watches the Listener, then its RouteConfiguration (RDS or inline), through the XdsClient
 *   -&gt; VirtualHosts: the virtual host for the name
 *   -&gt; publishes, per change of routes:
 *        a RoutingConfigSelector (the channel's ConfigSelector): per call, the first matching route
 *          (RouteMatcher) -&gt; its cluster, method config (MethodConfigs: timeout, retry policy),
 *          hash (RouteHash, for ring_hash) and filters' interceptors (RouteFilters, A39)
 *        a service config: xds_cluster_manager_experimental, one cds_experimental child per
 *          cluster in use (ClusterRefs: the routes' and the uncommitted calls' references)
 * </pre>
 *
 * <p>Threads: the resolver's state lives in the channel's {@link dev.tern.SynchronizationContext};
 * the xDS client's watcher callbacks are moved there. A selector is immutable and runs on the
 * threads that start calls, as does {@link dev.tern.xds.internal.resolver.XdsRandom}; the cluster
 * references calls hold and release are thread-safe.
 *
 * <p>Uses the API, {@code dev.tern.xds}, {@code internal} and {@code internal.filter}; never the
 * balancers ({@code internal.lb}), which it names only by policy name in the service config ({@code
 * tools/java/package-rules.txt}). {@code RouteMatcher}, {@code VirtualHosts} and {@code XdsRandom}
 * are public for the xDS server's route check ({@code internal.server}).
 */
package dev.tern.xds.internal.resolver;
