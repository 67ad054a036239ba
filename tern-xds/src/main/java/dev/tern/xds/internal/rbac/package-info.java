/**
 * The RBAC engine of xDS servers (gRFC A41): the policies of an {@code envoy.config.rbac.v3.RBAC}
 * compiled into matchers ({@link dev.tern.xds.internal.rbac.RbacParser}) and the decision for one
 * call ({@link dev.tern.xds.internal.rbac.RbacEngine}, on an {@link
 * dev.tern.xds.internal.rbac.RbacRequest}). The RBAC HTTP filter in {@code
 * dev.tern.xds.internal.filter} builds on it; this package imports no other package of tern-xds.
 */
package dev.tern.xds.internal.rbac;
