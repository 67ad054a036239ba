/**
 * HTTP/3 itself, as tern-http3 speaks it: QUIC varints ({@code VarInt}), the frames of a stream
 * read as bytes arrive ({@code Http3FrameReader}) and written ({@code Http3Frames}), QPACK with the
 * dynamic table's capacity at 0 ({@code QpackDecoder}, {@code QpackEncoder}, the static table), the
 * error codes and their scope ({@code Http3Exception}). Bytes in, calls out: no I/O and no QUIC
 * here, so it is tested (and fuzzed) alone. It uses tern-netty's Huffman code and header sink
 * (QPACK's Huffman code is HPACK's), the JDK and Netty's buffers, nothing else. Not API.
 *
 * <p>Thread-safety: the readers hold one stream's state and are used by that stream's event loop;
 * everything else is stateless.
 */
package dev.tern.http3.internal.frame;
