/**
 * xDS HTTP filters (gRFC A39) and the ones Tern knows: the router, fault injection (A33, clients)
 * and RBAC (A41, servers; its engine is {@code dev.tern.xds.internal.rbac}). {@link
 * dev.tern.xds.internal.filter.FilterTypes} finds a filter type by the type URL of its config and
 * says where it runs; the validators in {@code dev.tern.xds} use it to parse a Listener's {@code
 * http_filters} and the {@code typed_per_filter_config} overrides of routes (a bad config is a
 * NACK), the xds resolver builds each route's client interceptors with the {@link
 * dev.tern.xds.internal.filter.ClientFilter}s, and an xDS server each route's server interceptors
 * with the {@link dev.tern.xds.internal.filter.ServerFilter}s, once per update. Imports neither the
 * resolver nor the balancers, nor {@code dev.tern.xds} (which imports this package).
 */
package dev.tern.xds.internal.filter;
