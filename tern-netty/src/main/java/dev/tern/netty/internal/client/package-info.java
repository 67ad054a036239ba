/**
 * The client transport: one HTTP/2 connection to one address, and the calls on it.
 *
 * <pre>
 *  application threads                         the connection's event loop
 *  ---------------------------------------     ----------------------------------------------
 *  NettyClientTransport.newStream/ping/shutdown
 *  NettyClientStream.start/writeMessage/...
 *    frames messages here (OutboundFramer) --&gt; WriteQueue --&gt; ClientHandler --&gt; HTTP/2 frames out
 *                                                             HEADERS, DATA, trailers, RST_STREAM,
 *                                                             GOAWAY, PING ack in
 *                                                               --&gt; ClientStreamState (deframes)
 *  runtime's listener  &lt;------------------------------------------ headersRead/messagesAvailable/closed
 * </pre>
 *
 * <p>In: the runtime's calls on the transport and its streams, from any thread; the server's
 * frames, read on the event loop. Out: frames to the server; listener events (headers, messages,
 * the final {@code Status}, which {@link dev.tern.netty.internal.client.Http2Statuses} maps from
 * {@code :status}, {@code grpc-status} and RST_STREAM codes), delivered on the event loop one at a
 * time. Threads: the application half ({@link dev.tern.netty.internal.client.NettyClientTransport},
 * {@link dev.tern.netty.internal.client.NettyClientStream}) runs on the caller's thread and only
 * enqueues; everything else runs on the event loop and needs no lock.
 *
 * <p>Uses the shared codec ({@code internal.codec}) and native I/O ({@code internal.io}); never the
 * server or the exchanges.
 */
package dev.tern.netty.internal.client;
