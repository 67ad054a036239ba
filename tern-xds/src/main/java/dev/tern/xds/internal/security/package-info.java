/**
 * Security from the control plane (A29, with A82, A87 and A101). Not API.
 *
 * <ul>
 *   <li>{@link dev.tern.xds.internal.security.CertificateProviders}: the process's certificate
 *       provider instances named in the bootstrap, each shared by every server and channel that
 *       names it and stopped with its last user.
 *   <li>{@link dev.tern.xds.internal.security.FileWatcherProvider}: one {@code file_watcher}
 *       instance, its key, certificate and roots followed on disk by tern-core's reloading key and
 *       trust managers ({@code dev.tern.tls}), or, with a SPIFFE bundle map (A87), by {@code
 *       SpiffeBundleTrustManager}, which checks a peer against the bundle of its SPIFFE ID's trust
 *       domain ({@code SpiffeBundleMap}, {@code SpiffeId}).
 *   <li>{@link dev.tern.xds.internal.security.ClusterTls}: a cluster's client TLS as the control
 *       plane has it now, one object per cluster that cluster_impl ({@code internal.lb}) puts on
 *       the cluster's endpoints for {@code XdsChannelCredentials}, read at each connection attempt
 *       so that a change reaches the next connection without new subchannels; {@code UpstreamTls}
 *       (identity, roots, then the cluster's SAN matchers or its server name through {@code
 *       SanCheckingTrustManager}, and the server name it sends, A101) is one version of it; {@code
 *       SystemRoots} are the JDK's trusted roots for clusters with {@code system_root_certs} (A82).
 *       The server's side, a filter chain's TLS, is built on the same instances by {@code
 *       internal.server}.
 * </ul>
 *
 * <p>Threads: files are re-read on the reloading managers' own threads; handshakes read the current
 * material from the transports' threads; balancers and servers take and release instances from
 * their own threads. Everything here is thread-safe.
 *
 * <p>Uses the API, {@code dev.tern.tls} and {@code dev.tern.xds} (the bootstrap and the TLS model).
 */
package dev.tern.xds.internal.security;
