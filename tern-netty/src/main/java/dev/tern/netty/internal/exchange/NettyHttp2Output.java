package dev.tern.netty.internal.exchange;

import dev.tern.netty.internal.codec.GrpcHttp2ConnectionHandler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * {@link Http2StreamOutput} on Netty's HTTP/2 codec: frames go through the handler's encoder, whose
 * flow controller holds the DATA the windows do not allow yet.
 *
 * <p>Event loop only, as the handler it writes through.
 */
final class NettyHttp2Output implements Http2StreamOutput {
  private final GrpcHttp2ConnectionHandler handler;

  NettyHttp2Output(GrpcHttp2ConnectionHandler handler) {
    this.handler = handler;
  }

  @Override
  public ChannelHandlerContext ctx() {
    return handler.ctx();
  }

  @Override
  public void writeHeaders(
      int streamId, Http2Headers headers, boolean endStream, ChannelPromise promise) {
    handler.encoder().writeHeaders(handler.ctx(), streamId, headers, 0, endStream, promise);
  }

  @Override
  public void writeData(int streamId, ByteBuf data, boolean endStream, ChannelPromise promise) {
    handler.encoder().writeData(handler.ctx(), streamId, data, 0, endStream, promise);
  }

  @Override
  public void resetIfOpen(int streamId, long errorCode) {
    Http2Stream stream = handler.connection().stream(streamId);
    if (stream != null && stream.state() != Http2Stream.State.CLOSED) {
      handler.resetStream(handler.ctx(), streamId, errorCode, handler.ctx().newPromise());
    }
  }

  @Override
  public boolean returnBytes(int streamId, int bytes) {
    return handler.returnBytes(streamId, bytes);
  }

  /**
   * Flushes through the HTTP/2 handler, whose flow controller holds the DATA the stream's window
   * allows until then (a flush from the handler's context would pass it by).
   */
  @Override
  public void flush() {
    handler.flush(handler.ctx());
  }
}
