/**
 * The default {@link dev.tern.ProxyDetector} (gRFC A1): {@link
 * dev.tern.internal.proxy.SystemProxyDetector}, which honours, in order, the environment's {@code
 * HTTPS_PROXY} with its {@code NO_PROXY} exceptions ({@code ProxyEnvironment}, {@link
 * dev.tern.internal.proxy.NoProxyRules}) and the JVM's {@link java.net.ProxySelector}, with Basic
 * credentials from the proxy URL or {@link java.net.Authenticator}. Not API; may change at any
 * time.
 *
 * <p>Threads: the detector is immutable and thread-safe; the DNS resolvers call it on their
 * channel's offload executor, where it may block (a look-up of the proxy's name, a password
 * prompt).
 *
 * <p>Uses the API only.
 */
package dev.tern.internal.proxy;
