/**
 * The client transport: one HTTP/2 connection to one address, and the calls on it.
 *
 * <pre>
 *  application threads:
 *    NettyClientTransport.newStream/ping/shutdown, NettyClientStream.start/writeMessage/halfClose
 *      frame messages (OutboundFramer) --&gt; the connection's WriteQueue
 *  the connection's event loop:
 *    WriteQueue --&gt; ClientHandler --&gt; HEADERS, DATA, RST_STREAM, PING out
 *    HEADERS, DATA, trailers, RST_STREAM, GOAWAY in --&gt; ClientHandler --&gt; ClientStreamState
 *      --&gt; deframed messages, Http2Statuses --&gt; the runtime's listener
 *         (headersRead, messagesAvailable, closed)
 * </pre>
 *
 * <p>In: the runtime's calls on the transport and its streams, from any thread; the server's
 * frames, read on the event loop. Out: frames to the server; listener events (headers, messages,
 * the final {@code Status}, which {@link dev.tern.netty.internal.client.Http2Statuses} maps from
 * {@code :status}, {@code grpc-status} and RST_STREAM codes), delivered on the event loop one at a
 * time. Threads: the application half ({@link dev.tern.netty.internal.client.NettyClientTransport},
 * {@link dev.tern.netty.internal.client.NettyClientStream}) runs on the caller's thread and only
 * enqueues; everything else runs on the event loop and needs no lock. What the reads give a call's
 * executor goes over after the loop's I/O, through the loop's {@code ReadBatchHandOff} ({@code
 * internal.io}), which each stream offers as its {@code handOff()}.
 *
 * <p>HTTP/2 is Tern's own engine ({@code internal.http2}), which {@code ClientHandler} drives on
 * the channel: each call's stream is one {@code ConnectionStream} (request fields until it opens,
 * DATA waiting for a slot under the server's concurrency limit, bytes handed and reported sent);
 * every frame of a flush goes into one buffer ({@code ClientWrites}); response header blocks are
 * decoded field by field ({@code ResponseHeaderSink}) into {@code GrpcResponseHeaders}. See
 * docs/http2-engine.md.
 *
 * <p>Through an HTTP CONNECT proxy (an {@link dev.tern.HttpConnectProxiedSocketAddress}), the
 * connection goes to the proxy and {@code HttpConnectTunnel}, first in the pipeline, asks it for
 * the tunnel ({@code HttpConnectResponse} reads the answer) and holds TLS and HTTP/2 back until it
 * is open; a refusal becomes the connection's status.
 *
 * <p>HTTP/3 calls are tern-http3's ({@code Http3Connector} is the seam, found by {@link
 * java.util.ServiceLoader}); it reuses the response header sink, {@code Http2Statuses} and {@code
 * RequestPaths} from here, exported to it by the module-info. Where a server advertises HTTP/3
 * ({@code alt-svc}), {@code Http3Upgrade} moves the channel to it: {@code ClientHandler} reports
 * the field to {@code Http3Alternatives} ({@code AltSvcHeader} parses it) and retires its
 * connection when an alternative becomes usable; the next connection is a {@code
 * RacingClientTransport} of QUIC against TCP.
 *
 * <p>Uses {@code http2}, {@code grpc}, the write path ({@code write}, {@code buffer}) and {@code
 * io}; never the server or the exchanges (tools/java/package-rules.txt).
 */
package dev.tern.netty.internal.client;
