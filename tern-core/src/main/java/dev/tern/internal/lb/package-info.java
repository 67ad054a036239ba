/**
 * Tern's built-in load-balancing policies, found by the channel through {@code ServiceLoader} and
 * tern-core's {@code module-info}; nothing imports this package. Not API; may change at any time.
 *
 * <ul>
 *   <li>{@code pick_first} (gRFC A62, the default), {@link
 *       dev.tern.internal.lb.PickFirstLoadBalancerProvider}: one connection at a time, to the first
 *       address that answers, IPv6 and IPv4 interleaved as gRFC A61's happy eyeballs asks.
 *   <li>{@code round_robin}, {@link dev.tern.internal.lb.RoundRobinLoadBalancerProvider}, and
 *       {@code least_request} (gRFC A48), {@link
 *       dev.tern.internal.lb.LeastRequestLoadBalancerProvider}: both on {@code
 *       EndpointListLoadBalancer}, one subchannel per endpoint, each kept connected; they differ in
 *       their pickers (in turn, or the fewest calls in flight of a few random endpoints).
 *   <li>{@code RequestConnectionPicker}: the picker of an idle balancer, whose first pick asks for
 *       a connection.
 * </ul>
 *
 * <p>Threads: each balancer runs only in its channel's {@link dev.tern.SynchronizationContext} and
 * needs no lock; its pickers run on the application's threads, lock-free and thread-safe. Providers
 * are stateless.
 *
 * <p>Uses the API's {@link dev.tern.LoadBalancer} contract only, like a policy from outside Tern.
 */
package dev.tern.internal.lb;
