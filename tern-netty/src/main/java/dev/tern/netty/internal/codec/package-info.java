/**
 * What both ends of a connection share on the wire: the HTTP/2 handler base with its codec stack,
 * inbound headers decoded straight into gRPC's views, outbound headers, frame writers, the write
 * path from application threads to the socket, buffers, and the connection timers.
 *
 * <pre>
 *  in:  socket bytes --&gt; ReadCumulator --&gt; ClosedStreamHeadersGuard (frame reader)
 *         --&gt; GrpcHttp2HeadersDecoder --&gt; GrpcRequestHeaders / GrpcResponseHeaders
 *         --&gt; GrpcHttp2ConnectionHandler subclass (client or server)
 *       DATA --&gt; NettyReadableBuffer --&gt; the runtime's deframer
 *  out: application thread: OutboundFramer --&gt; NettyWritableBuffer --&gt; WriteQueue
 *       event loop: encoder --&gt; ActivityFrameWriter --&gt; ControlFrameLimitWriter
 *         --&gt; OneBufferHeadersWriter / OneBufferDataWriter --&gt; WriteCoalescer --&gt; socket
 * </pre>
 *
 * <p>Threads: {@link dev.tern.netty.internal.codec.WriteQueue} and {@link
 * dev.tern.netty.internal.codec.OutboundFramer} are the only classes called from application
 * threads (each says how it is safe); buffers are handed over, not shared; the rest runs on the
 * connection's event loop. {@link dev.tern.netty.internal.codec.NetworkFailures} and {@link
 * dev.tern.netty.internal.codec.GrpcWire} are stateless.
 *
 * <p>Uses native I/O ({@code internal.io}) at most; never the client, the server or the exchanges.
 * Exported to {@code dev.tern.web}, whose protocols deframe bodies with {@link
 * dev.tern.netty.internal.codec.NettyReadableBuffer}.
 */
package dev.tern.netty.internal.codec;
