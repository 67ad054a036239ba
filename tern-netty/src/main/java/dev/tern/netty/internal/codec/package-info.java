/**
 * What both ends of a connection share: gRPC's header fields (GrpcFields, GrpcWire), response
 * headers decoded for the client (GrpcResponseHeaders), the write path from application threads to
 * the event loop, buffers, and the connection timers.
 *
 * <pre>
 *  in:  DATA --&gt; NettyReadableBuffer --&gt; the runtime's deframer
 *  out: application thread: OutboundFramer --&gt; NettyWritableBuffer --&gt; WriteQueue
 *       event loop: the client or server handler --&gt; the HTTP/2 engine --&gt; socket
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
