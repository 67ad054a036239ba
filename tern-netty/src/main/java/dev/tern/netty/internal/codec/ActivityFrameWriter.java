package dev.tern.netty.internal.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DecoratingHttp2FrameWriter;
import io.netty.handler.codec.http2.Http2FrameWriter;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * A frame writer that tells a listener each time a HEADERS or DATA frame goes to the wire. The
 * server's keepalive policy counts a client's pings only between such frames; a large message
 * leaves as many flow-controlled DATA frames over time, each of which is activity.
 *
 * <p>Event loop only, like the codec it sits in; the listener is set once, before the connection is
 * active.
 */
public final class ActivityFrameWriter extends DecoratingHttp2FrameWriter {
  private Runnable listener = () -> {};

  ActivityFrameWriter(Http2FrameWriter delegate) {
    super(delegate);
  }

  public void setListener(Runnable listener) {
    this.listener = listener;
  }

  @Override
  public ChannelFuture writeData(
      ChannelHandlerContext ctx,
      int streamId,
      ByteBuf data,
      int padding,
      boolean endStream,
      ChannelPromise promise) {
    listener.run();
    return super.writeData(ctx, streamId, data, padding, endStream, promise);
  }

  @Override
  public ChannelFuture writeHeaders(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int padding,
      boolean endStream,
      ChannelPromise promise) {
    listener.run();
    return super.writeHeaders(ctx, streamId, headers, padding, endStream, promise);
  }

  @Override
  public ChannelFuture writeHeaders(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int streamDependency,
      short weight,
      boolean exclusive,
      int padding,
      boolean endStream,
      ChannelPromise promise) {
    listener.run();
    return super.writeHeaders(
        ctx, streamId, headers, streamDependency, weight, exclusive, padding, endStream, promise);
  }
}
