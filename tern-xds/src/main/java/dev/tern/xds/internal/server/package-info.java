/**
 * xDS-enabled servers (gRFC A36), behind {@code dev.tern.xds.server.XdsServerBuilder}. Not API.
 *
 * <pre>
 * XdsServerBuilder --XdsServing--&gt; the transport's server builder gets:
 *   XdsServer            the transport's server, bound at start, plus the watch of its Listener
 *     ServingWatch       the Listener and the RouteConfigurations its chains name (RDS)
 *     -&gt; ServingState   SERVING or NOT_SERVING, the chains (ChainConfig) and their connections
 *   a connection:  XdsConnectionCredentials (tern-core's per-connection credentials) chooses its
 *                  chain (FilterChainSelector) and so its TLS (ChainSecurity, A29);
 *                  ChainTransportFilter admits it to that chain or refuses it, and has the
 *                  transport close connections unanswered while the server is not serving (A36)
 *   a call:        RoutingInterceptor: virtual host and route of the chain's routes (the
 *                  resolver's VirtualHosts and RouteMatcher), then the route's HTTP filters'
 *                  interceptors (RouteInterceptors, A39 on servers: RBAC)
 * </pre>
 *
 * <p>Threads: the watch runs in the xDS client's synchronization context and tells {@code
 * ServingState} (and the application's serving-status listener) of changes there; connections are
 * admitted and released on transport threads, under {@code ServingState}'s one lock, and drained
 * outside it. Calls read their chain's routes (a volatile field) on the thread that starts them.
 * {@code XdsServer}'s start and shutdown are synchronized; everything here is thread-safe.
 *
 * <p>Uses the API, {@code dev.tern.xds}, {@code internal.filter}, {@code internal.resolver}'s route
 * matching and {@code internal.security}; the RBAC engine only through the filters.
 */
package dev.tern.xds.internal.server;
