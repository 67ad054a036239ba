package dev.tern.netty.internal.exchange;

import dev.tern.netty.internal.http2.Http2Stream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * How an {@link Http2Exchange} writes to its HTTP/2 connection (the server's {@code
 * ExchangeOutput}, on the engine), so this package needs nothing of the server: response headers,
 * body DATA, the stream's reset, the request body's flow-control credit, and the flush.
 *
 * <p>Event loop only: every method is called on the connection's event loop.
 */
public interface Http2StreamOutput {
  /** The connection's channel context: its event loop, allocator, promises and state. */
  ChannelHandlerContext ctx();

  /**
   * Writes a HEADERS frame of {@code headers} (names and values alternating, pseudo-headers first;
   * read, not kept); {@code promise} completes once it left the connection (for headers that end
   * the stream, with the DATA before them).
   */
  void writeHeaders(
      Http2Stream stream, byte[][] headers, boolean endStream, ChannelPromise promise);

  /**
   * Writes DATA, taking ownership of {@code data}, as far as flow control lets it go; {@code
   * promise} completes once all of it left the connection, or failed to.
   */
  void writeData(Http2Stream stream, ByteBuf data, boolean endStream, ChannelPromise promise);

  /** Resets the stream with {@code errorCode}, unless it is closed already. Does not flush. */
  void resetIfOpen(Http2Stream stream, long errorCode);

  /**
   * Returns {@code bytes} of the request body to the stream's window.
   *
   * @return whether a flush is due (a WINDOW_UPDATE may be waiting)
   */
  boolean returnBytes(Http2Stream stream, int bytes);

  /** Writes what is queued to the socket. */
  void flush();
}
