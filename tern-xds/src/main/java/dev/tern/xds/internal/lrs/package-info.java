/**
 * Load reporting (LRS, gRFC A27): the counters cluster_impl keeps per cluster and locality while a
 * cluster asks for load reports, and the registry an {@code XdsClient} reads them from. Imports
 * nothing else of tern-xds, so both the balancer tree and the client can use it.
 */
package dev.tern.xds.internal.lrs;
