/**
 * The xDS balancer tree below the cluster manager (gRFC A27, A37, A32): {@code cds_experimental},
 * {@code cluster_resolver_experimental}, {@code priority_experimental}, {@code
 * weighted_target_experimental} and {@code cluster_impl_experimental}. Not API, may change at any
 * time. Every balancer here runs in its channel's synchronization context, as the LB SPI requires;
 * pickers are immutable and may be called from any thread.
 */
package dev.tern.xds.internal.lb;
