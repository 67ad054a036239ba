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
 */
package dev.tern.xds.orca;
