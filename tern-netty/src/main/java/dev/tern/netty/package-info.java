/**
 * The HTTP/2 transport of Tern, on Netty: {@link dev.tern.netty.NettyServerBuilder} and {@link
 * dev.tern.netty.NettyChannelBuilder}. With this module on the class path, {@code
 * ServerBuilder.forPort(port)} and {@code ManagedChannelBuilder.forAddress(host, port)} find it
 * without naming it.
 *
 * <pre>
 *  ServerBuilder.forPort / ManagedChannelBuilder.forTarget --&gt; NettyServerProvider /
 *    NettyChannelProvider --&gt; NettyServerBuilder / NettyChannelBuilder
 *  build() --&gt; the transport (internal.server, internal.client) on Netty's event loops;
 *    HTTP/2 by Tern's own engine (internal.http2)
 *  dns: targets --&gt; NettyDnsNameResolverProvider; TLS --&gt; NettySslContexts
 * </pre>
 *
 * <p>Threads: the builders are not thread-safe (configure from one thread, then {@code build()});
 * the providers and {@code NettySslContexts} are thread-safe, and so are the servers and channels
 * the builders build.
 */
package dev.tern.netty;
