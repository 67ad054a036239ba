/**
 * The public API of xDS on the client that is not the channel itself: {@link
 * dev.tern.xds.client.XdsChannelCredentials}, the credentials that take each cluster's TLS from the
 * control plane (A29). The channel needs no class of its own: an {@code xds:} target (the resolver
 * in {@code dev.tern.xds.internal.resolver}) and these credentials are all an application names.
 *
 * <p>Threads: the credentials are immutable and thread-safe. They hold no state of their own: the
 * TLS is chosen per connection from the attribute the cluster's balancer ({@code cluster_impl})
 * puts on each endpoint's address group; without one, the fallback credentials apply.
 *
 * <p>Uses the API and, of tern-xds, only the attribute key and the cluster's TLS ({@code
 * dev.tern.xds.internal}, {@code dev.tern.xds.internal.security}).
 */
package dev.tern.xds.client;
