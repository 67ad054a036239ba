/**
 * xDS-enabled servers (gRFC A36), behind {@code dev.tern.xds.server.XdsServerBuilder}: the watch of
 * the server's Listener and its RouteConfigurations ({@link ServingState}), the choice of a filter
 * chain per connection ({@link FilterChainSelector}) through the transport filter seam of tern-core
 * ({@link ChainTransportFilter}, which also has the transport close connections unanswered while
 * the server is not serving, A36), and the per-call route check ({@link RoutingInterceptor}) with
 * the route's HTTP filters ({@link RouteInterceptors}, A39 on servers: RBAC). Route matching is the
 * resolver's ({@code RouteMatcher}, {@code VirtualHosts}).
 */
package dev.tern.xds.internal.server;
