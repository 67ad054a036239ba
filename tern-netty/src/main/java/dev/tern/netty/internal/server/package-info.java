/**
 * The server transport: the listening socket, each accepted connection, and the gRPC calls on it.
 *
 * <pre>
 *  NettyServer: accepted connection --&gt; NettyServerTransport, and its pipeline:
 *    cleartext: ProtocolDetector;  TLS: PlaintextOnTlsGuard, SslHandler, TlsProtocolSelector
 *    the first bytes (or ALPN) decide:
 *      HTTP/2   --&gt; ServerHandler
 *                     HEADERS: validated; gRPC --&gt; ServerStreamState + NettyServerStream
 *                              --&gt; the runtime's streamCreated;
 *                              other --&gt; exchange.Http2Exchanges
 *                     DATA --&gt; deframed, requested messages; END_STREAM --&gt; halfClosed
 *                     RST_STREAM --&gt; call cancelled; PING, GOAWAY (the engine's double
 *                     GOAWAY), keepalive
 *      HTTP/1.1 --&gt; exchange.Http1ServerHandler
 *  application threads: NettyServerStream writes, NettyServerTransport shutdowns
 *    --&gt; the connection's WriteQueue --&gt; ServerHandler on the event loop --&gt; frames out
 * </pre>
 *
 * <p>In: connections, and the client's frames, read on each connection's event loop; the runtime's
 * responses and lifecycle requests from any thread. Out: calls and their messages to the runtime's
 * listeners, on the event loop; frames to the client (responses, refusals with an HTTP or gRPC
 * status, GOAWAY). Threads: {@link dev.tern.netty.internal.server.NettyServer} is started and shut
 * down from any thread; {@link dev.tern.netty.internal.server.NettyServerTransport} and {@link
 * dev.tern.netty.internal.server.NettyServerStream} take requests from any thread and only enqueue
 * them on the connection's {@code WriteQueue}; everything else runs on the event loop, lock-free.
 * What a loop's reads give the server's executor waits for the end of the loop's I/O and goes over
 * from one task ({@link dev.tern.netty.internal.io.ReadBatchHandOff}, the streams' {@code
 * HandOff}), so a batch of reads (up to 64 calls' tasks) wakes the executor once.
 *
 * <p>HTTP/2 is Tern's own engine ({@code internal.http2}), which {@code ServerHandler} drives on
 * the channel: each read goes to the engine with the flush's one output buffer ({@code
 * ServerWrites}); request header blocks are decoded straight into metadata ({@code
 * RequestHeaders}); each call is one {@code ConnectionCall} beside its {@code ServerStreamState},
 * and the exchanges' writes go through {@code ExchangeOutput}. Per-stream state lives in the
 * engine's stream ({@code Http2Stream}'s slot: the call, the exchange, or a request body's {@code
 * DeclaredLength}), not in maps keyed by stream id; {@code ConnectionCalls} lists the calls that
 * have not ended, for the connection's end, shutdown and idle limit.
 *
 * <p>Uses the exchanges ({@code internal.exchange}) for requests gRPC does not take, {@code http2},
 * {@code grpc}, the write path ({@code write}, {@code buffer}) and {@code io}; never the client
 * (tools/java/package-rules.txt).
 */
package dev.tern.netty.internal.server;
