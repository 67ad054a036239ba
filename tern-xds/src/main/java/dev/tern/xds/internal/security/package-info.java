/**
 * Security from the control plane (A29): the bootstrap's certificate provider instances (the {@code
 * file_watcher} plugin), shared by every server and channel of the process that names them, and the
 * key and trust managers built on them. On the client, {@link
 * dev.tern.xds.internal.security.ClusterTls} is a cluster's TLS as the control plane has it now:
 * one object per cluster on its endpoints' addresses, read at each connection attempt, so a change
 * reaches the next connection without new subchannels; {@code UpstreamTls} is one version of it.
 * Everything here is thread-safe.
 */
package dev.tern.xds.internal.security;
