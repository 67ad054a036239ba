/**
 * Health checking, both sides of it: the {@code grpc.health.v1.Health} service a server carries,
 * and client-side health checking (gRFC A17) for {@code round_robin}.
 *
 * <p>Server side:
 *
 * <ul>
 *   <li>{@link dev.tern.services.health.HealthStatusManager}: the API; sets each service's status
 *       and hands out the service.
 *   <li>{@code HealthService}: {@code Check}, {@code Watch} and {@code List} over the statuses,
 *       with one {@code HealthWatcher} per {@code Watch} call, which keeps only the latest status
 *       while the client does not read.
 * </ul>
 *
 * <p>Client side:
 *
 * <ul>
 *   <li>{@link dev.tern.services.health.HealthCheckingLoadBalancerProvider}: replaces core's {@code
 *       round_robin} (found through {@link java.util.ServiceLoader}, higher priority).
 *   <li>{@code HealthCheckingLoadBalancer}: wraps {@code round_robin}, giving it health-checked
 *       subchannels when the service config names a service.
 *   <li>{@code HealthCheckedSubchannel}: READY only while its server answers SERVING on a {@code
 *       Watch} call run on the subchannel's connection, with back-off between failed calls.
 * </ul>
 *
 * <p>Threads: a status may be set from any thread; {@code HealthService} holds one lock over the
 * statuses and watchers and tells watchers of a change under it (a watcher never blocks and never
 * takes that lock). The client-side balancer and subchannels run in the channel's synchronization
 * context, and the {@code Watch} call's callbacks are handed to it; their pickers are thread-safe.
 */
package dev.tern.services.health;
