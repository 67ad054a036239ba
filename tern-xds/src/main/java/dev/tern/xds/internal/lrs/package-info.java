/**
 * Load reporting's counters (LRS, gRFC A27). Not API.
 *
 * <pre>
 * cluster_impl (internal.lb) --lease--&gt; LoadStatsRegistry (one per control plane)
 *   -&gt; ClusterLoadStats (one per cluster and EDS service name, shared by the channels' balancers)
 *        -&gt; LocalityLoadCounter per LrsLocality (issued, in progress, succeeded, errored)
 *        -&gt; drops per category
 * the XdsClient's LRS stream (dev.tern.xds.LoadReportClient) reads and resets them each interval
 * </pre>
 *
 * <p>Threads: calls count on the threads that start and end them, without a lock (adders and
 * concurrent maps); the registry's lock is taken only when a balancer takes or releases its lease
 * and when a report is taken. Everything here is thread-safe; {@code LrsLocality} is immutable.
 *
 * <p>Imports only the API, neither {@code dev.tern.xds} nor the balancers nor the resolver ({@code
 * tools/java/package-rules.txt}), so the balancer tree and the client can both use it.
 */
package dev.tern.xds.internal.lrs;
