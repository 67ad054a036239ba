/**
 * ORCA (Open Request Cost Aggregation, gRFC A51) for servers: backend metrics that a client's load
 * balancer ({@code weighted_round_robin}, A58) weighs endpoints by.
 *
 * <ul>
 *   <li>Per call: install {@link OrcaMetricReportingServerInterceptor}; a handler fills {@link
 *       CallMetricRecorder#current()} and the values go back in the call's trailer {@code
 *       endpoint-load-metrics-bin} (a serialized {@code xds.data.orca.v3.OrcaLoadReport}).
 *   <li>Out of band: add {@link OrcaService} to the server; clients that open {@code
 *       xds.service.orca.v3.OpenRcaService/StreamCoreMetrics} get the {@link MetricRecorder}'s
 *       values at the interval they ask for (never more often than the service's minimum).
 * </ul>
 *
 * <p>Servers that use neither pay nothing: nothing here is on the call path unless installed.
 *
 * <p>Threads: the recorders are thread-safe; a handler records from any thread while the call runs,
 * and its report is read when the call closes. {@code OrcaService}'s streams send on the scheduler
 * the application gives it (and never shuts down). {@code MetricValues} is the recorders'
 * unsynchronized inside.
 *
 * <p>Public API; uses Tern's API and stubs only. The client's side is {@code
 * dev.tern.xds.internal.orca}.
 */
package dev.tern.xds.orca;
