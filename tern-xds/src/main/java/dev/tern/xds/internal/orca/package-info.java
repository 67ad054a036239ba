/**
 * ORCA on the client (gRFC A51): the load reports a backend sends in a call's trailer ({@link
 * dev.tern.xds.internal.orca.OrcaPerCallTracer}) or on an out-of-band stream per subchannel ({@link
 * dev.tern.xds.internal.orca.OrcaOobStream}), handed to a balancer as {@code OrcaLoadReport}s. Used
 * by {@code weighted_round_robin}; imports neither the resolver nor the balancers. Not API.
 */
package dev.tern.xds.internal.orca;
