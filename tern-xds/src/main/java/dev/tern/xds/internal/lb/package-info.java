/**
 * The xDS balancer tree (gRFC A27, A37, A32): the cluster manager ({@code
 * xds_cluster_manager_experimental}), which routes each call to the child its route chose, and
 * below it {@code cds_experimental}, {@code cluster_resolver_experimental}, {@code
 * priority_experimental}, {@code weighted_target_experimental}, {@code cluster_impl_experimental},
 * {@code ring_hash_experimental} (A42) and {@code weighted_round_robin} (A58, weighing endpoints by
 * their ORCA reports from {@code internal.orca}). {@code cluster_impl_experimental} marks each
 * endpoint with its cluster's TLS (A29), one object that follows the cluster's UpstreamTlsContext,
 * so that the endpoint policies need do nothing when it changes (see {@code ClusterImplBalancer}).
 * Balancers make their children only through the {@link dev.tern.LoadBalancerRegistry} by their
 * policy names; nothing here imports the resolver ({@code internal.resolver}). Not API. Every
 * balancer runs in its channel's synchronization context, as the LB SPI requires; pickers are
 * immutable and may be called from any thread.
 */
package dev.tern.xds.internal.lb;
