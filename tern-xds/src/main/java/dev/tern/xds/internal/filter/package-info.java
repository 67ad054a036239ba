/**
 * xDS HTTP filters (gRFC A39) and the ones Tern knows. Not API.
 *
 * <pre>
 * a Listener's http_filters, a route's typed_per_filter_config
 *   --FilterTypes (by the config's type URL): FilterType.parse--&gt; FilterConfig, or a
 *     FilterConfigException naming the field (the validators of dev.tern.xds: a NACK)
 * once per route update:
 *   client (the xds resolver): ClientFilter -&gt; the ClientInterceptor of the route's calls
 *   server (an xDS server):    ServerFilter -&gt; the ServerInterceptor of the route's calls
 * </pre>
 *
 * <p>The rooms: the contracts ({@link dev.tern.xds.internal.filter.FilterType}, {@link
 * dev.tern.xds.internal.filter.ClientFilter}, {@link dev.tern.xds.internal.filter.ServerFilter},
 * {@link dev.tern.xds.internal.filter.FilterConfig}, {@link
 * dev.tern.xds.internal.filter.FilterContext}, the registries {@link
 * dev.tern.xds.internal.filter.FilterTypes} and {@link
 * dev.tern.xds.internal.filter.ClientFilters}); the router ({@code RouterFilter}: the last filter,
 * clients and servers; routing itself is the resolver's or the server's); fault injection (A33,
 * clients: {@code FaultFilter}, {@code FaultConfig}, {@code FaultInterceptor}, {@code FaultCall},
 * {@code Fraction}, {@code HttpStatuses}); RBAC (A41, servers: {@code RbacFilter} on the engine of
 * {@code dev.tern.xds.internal.rbac}).
 *
 * <p>Threads: configs are parsed where resources are validated (the xDS client's synchronization
 * context); filters and configs are immutable, and the interceptors they make are thread-safe
 * ({@code FaultInterceptor} counts the faults in progress), running on the threads that start
 * calls. In a {@code FaultCall} the application's threads and the channel's scheduler ({@code
 * FilterContext}'s) meet under its lock, which is never held while calling out.
 *
 * <p>Imports the API and the RBAC engine only; not {@code dev.tern.xds} (which imports this
 * package), the resolver or the balancers ({@code tools/java/package-rules.txt}).
 */
package dev.tern.xds.internal.filter;
