/**
 * ORCA on the client (gRFC A51): the load reports backends send, handed to a balancer as {@code
 * OrcaLoadReport}s. Not API.
 *
 * <ul>
 *   <li>Per call: {@link dev.tern.xds.internal.orca.OrcaPerCallTracer}, a stream tracer a balancer
 *       returns with its pick, reads the report in the call's trailer {@code
 *       endpoint-load-metrics-bin}.
 *   <li>Out of band: {@link dev.tern.xds.internal.orca.OrcaOobStream}, one {@code
 *       StreamCoreMetrics} stream per READY subchannel, reopened with back-off.
 *   <li>{@link dev.tern.xds.internal.orca.OrcaReportListener}: what the balancer implements to hear
 *       them.
 * </ul>
 *
 * <p>Threads: per-call reports arrive on the thread that ends the call, from many calls at once; an
 * out-of-band stream lives in the channel's synchronization context, where its call's events are
 * brought and its reports delivered. Listeners must be thread-safe and must not block; the tracer
 * is immutable.
 *
 * <p>Used by {@code weighted_round_robin} ({@code internal.lb}); imports neither the balancers nor
 * the resolver ({@code tools/java/package-rules.txt}). The server's side is {@code
 * dev.tern.xds.orca}.
 */
package dev.tern.xds.internal.orca;
