/**
 * Tern's own HTTP/2 engine, made for gRPC (issue 34): the transport's one HTTP/2 layer, which the
 * client's and the server's handlers ({@code internal.client.ClientHandler}, {@code
 * internal.server.ServerHandler}) drive. Bytes in, bytes out, no I/O: {@link
 * dev.tern.netty.internal.http2.Http2Connection#receive} takes what the socket read and writes
 * every answer into one buffer the caller passes; the send methods write into it the same way.
 *
 * <pre>
 *  bytes read --&gt; Http2Connection.receive(in, out)
 *    --&gt; Http2FrameReader (frames checked, CONTINUATION gathered) --&gt; Http2InboundFrames
 *        (stream ids and states: Http2Streams, Http2Stream; SETTINGS: Http2Settings; flow
 *        control: Http2ReceiveWindow; floods and resets: Http2FloodGuard; Http2Limits)
 *    --&gt; HpackDecoder --&gt; the listener's HeaderSink, field by field as byte arrays
 *    --&gt; Http2ConnectionListener (the handler): headers, DATA, resets, GOAWAY, PINGs
 *  handler's sends --&gt; Http2Connection.sendHeaders / sendData / resetStream / ping / shutdown
 *    --&gt; HpackEncoder, Http2Outbound (DATA under both send windows: Http2SendWindow)
 *    --&gt; Http2FrameWriter --&gt; the caller's one buffer per flush (large DATA payloads to an
 *        Http2DataSplicer instead of being copied)
 * </pre>
 *
 * <p>The rooms:
 *
 * <ul>
 *   <li>HPACK (RFC 7541): {@link dev.tern.netty.internal.http2.HpackDecoder} delivers each header
 *       field to a {@link dev.tern.netty.internal.http2.HeaderSink} as byte arrays, never as
 *       Strings; {@link dev.tern.netty.internal.http2.HpackEncoder} indexes what gRPC repeats;
 *       {@link dev.tern.netty.internal.http2.HpackHuffman} holds the code of Appendix B, and {@link
 *       dev.tern.netty.internal.http2.HuffmanDecoder} decodes it a nibble at a time; the static and
 *       dynamic tables.
 *   <li>Frames (RFC 9113 sections 4 and 6): {@link dev.tern.netty.internal.http2.Http2FrameReader}
 *       validates and parses frames fed in arbitrary chunks and hands them to a {@link
 *       dev.tern.netty.internal.http2.Http2FrameListener}; {@link
 *       dev.tern.netty.internal.http2.Http2FrameWriter} writes frames into one caller-supplied
 *       buffer per flush.
 *   <li>The connection (sections 3.4, 5, 6.5 to 6.9): {@link
 *       dev.tern.netty.internal.http2.Http2Connection} (prefaces, SETTINGS, PING, a server's
 *       graceful shutdown in two GOAWAYs) and what it is made of: the rules that need its state,
 *       the streams' state machines and id rules, the receive and send windows, the outbound queue,
 *       the limits and the flood guard; it reports to an {@link
 *       dev.tern.netty.internal.http2.Http2ConnectionListener}.
 * </ul>
 *
 * <p>The transport drives it through {@link dev.tern.netty.internal.http2.Http2Connection} and
 * hears it through {@link dev.tern.netty.internal.http2.Http2ConnectionListener}, whose stream
 * events hand the {@link dev.tern.netty.internal.http2.Http2Stream}: its id and one slot for the
 * transport's per-stream state, whose type this package does not know.
 *
 * <p>Errors are checked exceptions that say what the peer did wrong and what the connection must
 * do: {@link dev.tern.netty.internal.http2.HpackException}, {@link
 * dev.tern.netty.internal.http2.Http2FrameException}. The connection never lets them escape: a
 * stream error is answered with RST_STREAM, a connection error with GOAWAY, and both reach the
 * listener.
 *
 * <p>Threads: every object here belongs to one connection and is used only on that connection's
 * event loop; none is thread-safe and none needs to be. The tables built at class initialisation
 * (static table, Huffman code and decoding state machine) are immutable and shared.
 *
 * <p>A leaf: it imports only the JDK and Netty's buffers (and utilities), nothing of the transport
 * nor of Netty's HTTP/2 codec ({@code Http2PackageLeafTest} and tools/java/package-rules.txt check
 * it). See docs/http2-engine.md.
 */
package dev.tern.netty.internal.http2;
