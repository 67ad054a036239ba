/**
 * The server transport: the listening socket, each accepted connection, and the gRPC calls on it.
 *
 * <pre>
 *  acceptor thread      the connection's event loop                          application threads
 *  ---------------      -------------------------------------------------   -------------------
 *  NettyServer accepts
 *    --&gt; NettyServerTransport (+ PlaintextOnTlsGuard, LingeringClose)
 *        ProtocolDetector (cleartext) or TlsProtocolSelector (ALPN) decides:
 *          HTTP/2   --&gt; ServerHandler: HEADERS --&gt; validated request
 *                         gRPC  --&gt; ServerStreamState --&gt; runtime listener   NettyServerStream
 *                         other --&gt; exchange.Http2Exchanges                    writes enqueue on
 *                       DATA --&gt; deframed messages, END_STREAM --&gt; halfClosed  WriteQueue
 *                       RST_STREAM --&gt; call cancelled; keepalive, GOAWAY       --&gt; ServerHandler
 *          HTTP/1.1 --&gt; exchange.Http1ServerHandler
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
