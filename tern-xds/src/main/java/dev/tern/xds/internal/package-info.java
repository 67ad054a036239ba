/**
 * What the xds name resolver ({@code internal.resolver}) and the xDS balancers ({@code
 * internal.lb}) share. Not API.
 *
 * <ul>
 *   <li>{@link dev.tern.xds.internal.XdsAttributes}: the keys by which they hand each other what
 *       the public SPI has no field for (the resolver's {@code XdsClient}, the cluster a call's
 *       route chose, the call's ring-hash key, an endpoint's cluster TLS for {@code
 *       XdsChannelCredentials}).
 *   <li>{@link dev.tern.xds.internal.XxHash64}: the hash of ring hash (gRFC A42), for the ring's
 *       points (the balancer) and the routes' hash policies (the resolver).
 * </ul>
 *
 * <p>Threads: constants and a stateless hash; thread-safe.
 *
 * <p>The resolver and the balancers never import each other, and this package imports neither
 * ({@code tools/java/package-rules.txt}): the resolver names the balancers only by their policy
 * names in the service config it produces.
 */
package dev.tern.xds.internal;
