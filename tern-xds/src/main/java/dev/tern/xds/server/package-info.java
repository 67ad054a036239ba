/**
 * xDS-enabled servers (gRFC A36): {@link dev.tern.xds.server.XdsServerBuilder}, whose filter chains
 * and routes the control plane configures.
 */
package dev.tern.xds.server;
