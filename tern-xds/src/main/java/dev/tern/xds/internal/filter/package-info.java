/**
 * xDS HTTP filters on the client (gRFC A39) and the ones Tern knows: the router and fault injection
 * (A33). {@link dev.tern.xds.internal.filter.ClientFilters} finds a filter by the type URL of its
 * config; the validators in {@code dev.tern.xds} use it to parse a Listener's {@code http_filters}
 * and the {@code typed_per_filter_config} overrides of routes (a bad config is a NACK), and the xds
 * resolver uses it to build each route's per-call interceptors once per route update. Imports
 * neither the resolver nor the balancers, nor {@code dev.tern.xds} (which imports this package).
 */
package dev.tern.xds.internal.filter;
