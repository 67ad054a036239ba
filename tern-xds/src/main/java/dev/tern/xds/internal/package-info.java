/**
 * What the xds name resolver ({@code internal.resolver}) and the xDS balancers ({@code
 * internal.lb}) share: the keys of {@link dev.tern.xds.internal.XdsAttributes}. The resolver and
 * the balancers never import each other; the resolver names the balancers only by their policy
 * names in the service config it produces.
 */
package dev.tern.xds.internal;
