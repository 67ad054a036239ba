/**
 * The public API of xDS on the client that is not the channel itself: {@link
 * dev.tern.xds.client.XdsChannelCredentials}, the credentials that take each cluster's TLS from the
 * control plane (A29).
 */
package dev.tern.xds.client;
