/**
 * The client side of proxyless service mesh, its foundation: the xDS bootstrap (gRFC A27), the
 * XdsClient that speaks ADS to a control plane, and the validated model of the four resource types
 * (listener, route configuration, cluster, endpoints). The xds name resolver and the balancers
 * build on these later (issue 35).
 */
package dev.tern.xds;
