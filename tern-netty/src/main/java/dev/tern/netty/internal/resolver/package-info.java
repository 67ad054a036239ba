/**
 * Name resolvers the Netty transport brings: {@code dns://SERVER/host} through Netty's DNS client
 * (A, AAAA, and TXT records for service configs), and {@code unix:} / {@code unix-abstract:}
 * targets for Unix domain sockets.
 *
 * <pre>
 *  dns://SERVER/host:port --&gt; NettyDnsNameResolver --&gt; shared DNS event loop
 *                         --&gt; addresses (and TXT service config) --&gt; the channel's listener
 *  unix:/path, unix-abstract:name --&gt; UdsNameResolverProvider --&gt; one DomainSocketAddress
 * </pre>
 *
 * <p>Threads: as the runtime's resolvers; the DNS queries run on one shared daemon event loop, and
 * results reach the channel through its listener. Uses {@code internal.io} for domain socket
 * addresses; nothing else of the transport.
 */
package dev.tern.netty.internal.resolver;
