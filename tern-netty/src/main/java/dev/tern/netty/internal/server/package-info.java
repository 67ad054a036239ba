/**
 * The server transport: the listening socket, each accepted connection, and the gRPC calls on it.
 *
 * <pre>
 *  NettyServer: accepted connection --&gt; NettyServerTransport, and its pipeline:
 *    cleartext: ProtocolDetector;  TLS: PlaintextOnTlsGuard, SslHandler, TlsProtocolSelector
 *    the first bytes (or ALPN) decide:
 *      HTTP/2   --&gt; EngineServerHandler
 *                     HEADERS: validated; gRPC --&gt; ServerStreamState + NettyServerStream
 *                              --&gt; the runtime's streamCreated;
 *                              other --&gt; exchange.Http2Exchanges
 *                     DATA --&gt; deframed, requested messages; END_STREAM --&gt; halfClosed
 *                     RST_STREAM --&gt; call cancelled; PING, GOAWAY (ServerShutdown), keepalive
 *      HTTP/1.1 --&gt; exchange.Http1ServerHandler
 *  application threads: NettyServerStream writes, NettyServerTransport shutdowns
 *    --&gt; the connection's WriteQueue --&gt; EngineServerHandler on the event loop --&gt; frames out
 * </pre>
 *
 * <p>In: connections, and the client's frames, read on each connection's event loop; the runtime's
 * responses and lifecycle requests from any thread. Out: calls and their messages to the runtime's
 * listeners, on the event loop; frames to the client (responses, refusals with an HTTP or gRPC
 * status, GOAWAY). Threads: {@link dev.tern.netty.internal.server.NettyServer} is started and shut
 * down from any thread; {@link dev.tern.netty.internal.server.NettyServerTransport} and {@link
 * dev.tern.netty.internal.server.NettyServerStream} take requests from any thread and only enqueue
 * them on the connection's {@code WriteQueue}; everything else runs on the event loop, lock-free.
 *
 * <p>Uses the exchanges ({@code internal.exchange}) for requests gRPC does not take, the shared
 * codec and native I/O; never the client.
 */
package dev.tern.netty.internal.server;
