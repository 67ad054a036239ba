/**
 * The xDS balancer tree (gRFC A27, A28, A32, A37, A42, A50, A56, A58). Not API.
 *
 * <pre>
 * xds_cluster_manager_experimental   one child per cluster the routes use; each call goes to the
 *                                    child its route chose (ClusterManagerLoadBalancer)
 *   -&gt; cds_experimental             watches the cluster, flattens aggregate clusters (ClusterTree)
 *   -&gt; cluster_resolver_experimental one discovery mechanism per leaf cluster (EdsWatch, DnsWatch)
 *                                    -&gt; PriorityTree: the config and addresses of the level below
 *   -&gt; priority_experimental        failover between priorities (PriorityChild's timers)
 *   -&gt; outlier_detection_experimental, when the cluster asks (OutlierEjection and friends)
 *   -&gt; cluster_impl_experimental    drops, circuit breaking (ClusterCallCounters), load reports
 *                                    (internal.lrs), the cluster's TLS on its addresses
 *   -&gt; weighted_target_experimental one target per locality (not under ring_hash)
 *   -&gt; the endpoint policy          ring_hash_experimental (Ring), weighted_round_robin (ORCA
 *                                    weights, StaticStrideScheduler), or tern-core's round_robin,
 *                                    least_request (EndpointPolicies)
 * </pre>
 *
 * <p>The rooms: one balancer, config record and provider per policy (each provider listed in {@code
 * META-INF/services}; {@code XdsBalancerProvider} is what they share); the plumbing of parents and
 * children ({@code ChildBalancer}, {@code ChildPolicy}, {@code ForwardingHelper}, {@code
 * ForwardingStreamTracer}, {@code JsonConfig}); the pickers ({@code ClusterImplPicker}, {@code
 * WeightedPicker}, {@code RingHashPicker}, {@code WeightedRoundRobinPicker}, {@code OutlierPicker})
 * and the tracers they add to picks. Balancers make their children only through the {@link
 * dev.tern.LoadBalancerRegistry}, by policy name.
 *
 * <p>The cluster's TLS (A29): {@code cluster_impl_experimental} marks each endpoint with one object
 * per cluster that follows the cluster's UpstreamTlsContext ({@code ClusterTls} in {@code
 * internal.security}), read at each connection attempt, so the endpoint policies need do nothing
 * when it changes; a change also resets the channel's connection back-off, so a failing endpoint
 * retries with the new settings at once (see {@code ClusterImplBalancer}).
 *
 * <p>Metrics (gRFC A78, A89, A94): EDS marks each address with its locality and cluster_impl with
 * its cluster's name ({@code dev.tern.MetricInstruments}' attributes), the labels of the channel's
 * subchannel metrics; {@code weighted_round_robin} records its scheduler updates through {@code
 * WeightedRoundRobinMetrics} (never on a pick).
 *
 * <p>Threads: every balancer, its children, its discovery mechanisms' callbacks and its timers run
 * in the channel's {@link dev.tern.SynchronizationContext}, as the LB SPI requires, and take no
 * lock. Pickers run on the application's threads, concurrently; they are immutable, and the
 * counters they and their tracers touch ({@code ClusterCallCounters}, the LRS counters, outlier
 * call counters, endpoint weights) are thread-safe. Providers are stateless.
 *
 * <p>Uses the API, {@code dev.tern.xds} (the client and model), {@code internal} (the keys shared
 * with the resolver), {@code internal.lrs}, {@code internal.orca} and {@code internal.security};
 * never the resolver ({@code internal.resolver}), which names these balancers only by policy name
 * in the service config it produces ({@code tools/java/package-rules.txt}).
 */
package dev.tern.xds.internal.lb;
