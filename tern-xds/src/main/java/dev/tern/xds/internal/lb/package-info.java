/**
 * The xDS balancer tree: the cluster manager ({@code xds_cluster_manager_experimental}), which
 * routes each call to the child its route chose, and below it the cds balancer and what it builds
 * on. The cluster manager makes its children only through the {@link dev.tern.LoadBalancerRegistry}
 * by their policy names; nothing here imports the resolver ({@code internal.resolver}).
 */
package dev.tern.xds.internal.lb;
