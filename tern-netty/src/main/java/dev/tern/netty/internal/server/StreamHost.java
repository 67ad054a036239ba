package dev.tern.netty.internal.server;

import dev.tern.netty.internal.codec.NettyWritableBufferAllocator;
import dev.tern.netty.internal.io.SocketNode;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * What a call's two halves ({@link NettyServerStream}, {@link ServerStreamState}) need of the
 * HTTP/2 connection they run on, so the same gRPC stream semantics run on Netty's HTTP/2 codec
 * ({@link ServerHandler}) and on Tern's own engine ({@link EngineServerHandler}).
 *
 * <p>Threads: {@link #inEventLoop}, {@link #execute}, {@link #executeWithNext}, {@link
 * #bufferAllocator} and {@link #unreadResponseLimits} may be called from any thread; every other
 * method on the connection's event loop only.
 */
interface StreamHost {
  boolean inEventLoop();

  /** Runs {@code command} on the event loop, through the connection's write queue. */
  void execute(Runnable command);

  /** Runs {@code command} on the event loop with the next command that is executed. */
  void executeWithNext(Runnable command);

  NettyWritableBufferAllocator bufferAllocator();

  /** The bounds on responses the client does not read, for the connection's streams. */
  UnreadResponseLimits unreadResponseLimits();

  /** The client does not read the responses queued on the connection: end it. */
  void closeForUnreadResponses();

  /** Resets the stream of {@code state} (ENHANCE_YOUR_CALM): its client does not read. */
  void resetForUnreadResponses(ServerStreamState state);

  /** The connection's channelz counters. */
  SocketNode socketNode();

  void writeHeaders(ServerStreamState state, Http2Headers headers, boolean endStream);

  /**
   * Writes framed response bytes (taking ownership of {@code data}); {@link
   * NettyServerStream#onSentBytes} follows once they left.
   */
  void writeData(ServerStreamState state, ByteBuf data, int bytes);

  /**
   * Writes trailers with END_STREAM; unless {@code aborting}, {@link
   * ServerStreamState#onTrailersWritten} follows.
   */
  void writeTrailers(ServerStreamState state, Http2Headers trailers, boolean aborting);

  /** Resets the stream right after its trailers, unless it is closed already. */
  void resetStreamAfterTrailers(ServerStreamState state);

  /** The call of {@code state} ended; forget it. */
  void streamClosed(ServerStreamState state);

  /** The application consumed {@code numBytes} of the stream's request DATA. */
  boolean returnBytes(int streamId, int numBytes);
}
