/**
 * xDS-enabled servers (gRFC A36): the public API of a server whose filter chains and routes the
 * control plane configures.
 *
 * <ul>
 *   <li>{@link dev.tern.xds.server.XdsServerBuilder}: the builder ({@code forPort}, {@code
 *       forAddress}, or around a transport's builder), its serving-status listener, drain grace
 *       time and bootstrap.
 *   <li>{@link dev.tern.xds.server.XdsServerCredentials}: the TLS each filter chain's
 *       DownstreamTlsContext describes (A29), else a fallback.
 *   <li>{@link dev.tern.xds.server.XdsServingStatusListener}: SERVING and NOT_SERVING as they
 *       change.
 * </ul>
 *
 * <p>Threads: the builder is not thread-safe; the server and credentials it builds are. The
 * serving-status listener is called from the xDS client's synchronization context and must return
 * quickly and not block.
 *
 * <p>The machinery is {@code dev.tern.xds.internal.server}; this package adds only what an
 * application names.
 */
package dev.tern.xds.server;
