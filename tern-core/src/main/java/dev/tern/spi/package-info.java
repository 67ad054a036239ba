/**
 * The transport SPI: what a transport (HTTP/2 on Netty, in-process, ...) implements so the runtime
 * can carry calls over it. Application code never needs this package.
 *
 * <pre>
 * client: channel -&gt; ClientTransportFactory (one per channel: event loops, a scheduler)
 *           -&gt; ManagedClientTransport (one connection) -&gt; ClientStream (one call)
 *           &lt;- ClientStreamListener (headers, messages, trailers, from the transport)
 * server: server  -&gt; TransportServer (bound sockets) -&gt; ServerListener.transportCreated
 *           -&gt; ServerTransport (one connection) + ServerTransportListener (the runtime's side)
 *           -&gt; streamCreated: ServerStream (one call) &lt;-&gt; ServerStreamListener
 * </pre>
 *
 * <p>The rooms: the transports' side ({@link dev.tern.spi.ClientTransportFactory}, {@link
 * dev.tern.spi.ManagedClientTransport}, {@link dev.tern.spi.TransportServer}, {@link
 * dev.tern.spi.ServerTransport}), the streams both ends share through {@link dev.tern.spi.Stream}
 * (request, write, flush, readiness, compression, {@link dev.tern.spi.WireSizeListener}), and the
 * runtime's listeners. Transports implement the first two; the runtime implements the listeners.
 *
 * <p>Threading contract for streams: the runtime calls a stream's methods from one thread at a time
 * (the application's); the transport calls a stream listener's methods from one thread at a time
 * (its own) and never while holding a lock the runtime could need. The runtime hops to the call's
 * executor itself. Transports, their factories and the server's listeners are thread-safe; a server
 * connection's listener is called one event at a time.
 *
 * <p>Names API types ({@code dev.tern}, and {@code dev.tern.channelz} for the sockets transports
 * report), never the runtime ({@code tools/java/package-rules.txt}); tern-core's in-process
 * transport and tern-netty implement it.
 */
package dev.tern.spi;
