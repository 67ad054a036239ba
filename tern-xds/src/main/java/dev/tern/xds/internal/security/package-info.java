/**
 * Security from the control plane (A29). Not API.
 *
 * <ul>
 *   <li>{@link dev.tern.xds.internal.security.CertificateProviders}: the process's certificate
 *       provider instances named in the bootstrap, each shared by every server and channel that
 *       names it and stopped with its last user.
 *   <li>{@link dev.tern.xds.internal.security.FileWatcherProvider}: one {@code file_watcher}
 *       instance, its key, certificate and roots followed on disk by tern-core's reloading key and
 *       trust managers ({@code dev.tern.tls}).
 *   <li>{@link dev.tern.xds.internal.security.ClusterTls}: a cluster's client TLS as the control
 *       plane has it now, one object per cluster that cluster_impl ({@code internal.lb}) puts on
 *       the cluster's endpoints for {@code XdsChannelCredentials}, read at each connection attempt
 *       so that a change reaches the next connection without new subchannels; {@code UpstreamTls}
 *       (identity, roots, then the cluster's SAN matchers through {@code SanCheckingTrustManager})
 *       is one version of it. The server's side, a filter chain's TLS, is built on the same
 *       instances by {@code internal.server}.
 * </ul>
 *
 * <p>Threads: files are re-read on the reloading managers' own threads; handshakes read the current
 * material from the transports' threads; balancers and servers take and release instances from
 * their own threads. Everything here is thread-safe.
 *
 * <p>Uses the API, {@code dev.tern.tls} and {@code dev.tern.xds} (the bootstrap and the TLS model).
 */
package dev.tern.xds.internal.security;
