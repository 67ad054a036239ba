/**
 * The {@code xds:} name resolver (gRFC A27, A28, A31, A44): it watches the target's Listener and
 * RouteConfiguration through the {@link dev.tern.xds.XdsClient}, picks the virtual host by domain,
 * and hands the channel a per-call {@link dev.tern.ConfigSelector} that matches each call to a
 * route (cluster, timeout, retry policy) and a service config whose balancer is the cluster manager
 * with one {@code cds_experimental} child per cluster the routes use. It names balancers only by
 * policy name: it never imports {@code dev.tern.xds.internal.lb}.
 */
package dev.tern.xds.internal.resolver;
