/**
 * Tern's own HTTP/2 engine, made for gRPC (issue 34): the transport's one HTTP/2 layer, which the
 * client's and the server's handlers drive. Its foundation is the two parsers a hostile peer
 * reaches first.
 *
 * <ul>
 *   <li>HPACK (RFC 7541): {@link dev.tern.netty.internal.http2.HpackDecoder} delivers each header
 *       field to a {@link dev.tern.netty.internal.http2.HeaderSink} as byte arrays, never as
 *       Strings; {@link dev.tern.netty.internal.http2.HpackEncoder} indexes what gRPC repeats;
 *       {@link dev.tern.netty.internal.http2.HpackHuffman} holds the code of Appendix B, and {@link
 *       dev.tern.netty.internal.http2.HuffmanDecoder} decodes it a nibble at a time.
 *   <li>Frames (RFC 9113 sections 4 and 6): {@link dev.tern.netty.internal.http2.Http2FrameReader}
 *       validates and parses frames fed in arbitrary chunks and hands them to a {@link
 *       dev.tern.netty.internal.http2.Http2FrameListener}; {@link
 *       dev.tern.netty.internal.http2.Http2FrameWriter} writes frames into one caller-supplied
 *       buffer per flush.
 * </ul>
 *
 * <p>The transport drives it through {@link dev.tern.netty.internal.http2.Http2Connection} and
 * hears it through {@link dev.tern.netty.internal.http2.Http2ConnectionListener}, whose stream
 * events hand the {@link dev.tern.netty.internal.http2.Http2Stream}: its id and one slot for the
 * transport's per-stream state, whose type this package does not know.
 *
 * <p>Errors are checked exceptions that say what the peer did wrong and what the connection must
 * do: {@link dev.tern.netty.internal.http2.HpackException}, {@link
 * dev.tern.netty.internal.http2.Http2FrameException}.
 *
 * <p>Threads: every object here belongs to one connection and is used only on that connection's
 * event loop; none is thread-safe and none needs to be. The tables built at class initialisation
 * (static table, Huffman code and decoding state machine) are immutable and shared.
 *
 * <p>A leaf: it imports only the JDK and Netty's {@code io.netty.buffer}, nothing of the transport
 * nor of Netty's HTTP/2 codec, which the transport no longer uses ({@code Http2PackageLeafTest}
 * checks it).
 */
package dev.tern.netty.internal.http2;
