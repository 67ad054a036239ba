package dev.tern.netty.internal.codec;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DecoratingHttp2FrameWriter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameWriter;
import io.netty.handler.codec.http2.Http2LifecycleManager;

/**
 * A frame writer that bounds the control frames a peer makes this side queue: SETTINGS and PING
 * acknowledgements and RST_STREAMs are answers the peer asks for at the price of a few bytes each,
 * and a peer that stops reading while it asks would make them pile up in memory without end. Once
 * more than the limit are written but not yet on the wire (their write not complete), the
 * connection is failed with ENHANCE_YOUR_CALM and closed, which drops what is queued; one FINE line
 * on {@code dev.tern.netty.connections} says so.
 *
 * <p>Event loop only, like the codec it sits in; the lifecycle manager is set once, by the
 * handler's constructor, before any frame is written.
 */
final class ControlFrameLimitWriter extends DecoratingHttp2FrameWriter {
  private final int maxQueued;
  private int queued;
  private final ChannelFutureListener onWritten = future -> queued--;
  private Http2LifecycleManager lifecycleManager;
  private boolean tripped;

  /** {@code maxQueued} is at least 1. */
  ControlFrameLimitWriter(Http2FrameWriter delegate, int maxQueued) {
    super(delegate);
    this.maxQueued = maxQueued;
  }

  void lifecycleManager(Http2LifecycleManager lifecycleManager) {
    this.lifecycleManager = lifecycleManager;
  }

  @Override
  public ChannelFuture writeSettingsAck(ChannelHandlerContext ctx, ChannelPromise promise) {
    return super.writeSettingsAck(ctx, counted(ctx, promise));
  }

  @Override
  public ChannelFuture writePing(
      ChannelHandlerContext ctx, boolean ack, long data, ChannelPromise promise) {
    return super.writePing(ctx, ack, data, ack ? counted(ctx, promise) : promise);
  }

  @Override
  public ChannelFuture writeRstStream(
      ChannelHandlerContext ctx, int streamId, long errorCode, ChannelPromise promise) {
    return super.writeRstStream(ctx, streamId, errorCode, counted(ctx, promise));
  }

  /** Counts one more queued control frame, failing the connection if that is too many. */
  private ChannelPromise counted(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (tripped) {
      return promise;
    }
    if (queued >= maxQueued) {
      // Frames written since the last flush may leave at once: only what still waits counts.
      ctx.flush();
    }
    if (queued >= maxQueued) {
      tripped = true;
      Http2Exception tooMany =
          Http2Exception.connectionError(
              Http2Error.ENHANCE_YOUR_CALM,
              "more than %d control frames queued: the peer does not read its answers",
              maxQueued);
      NetworkFailures.log(ctx, "closed", tooMany);
      if (lifecycleManager != null) {
        // Writes the GOAWAY (which a peer that does not read may never see) and closes.
        lifecycleManager.onError(ctx, true, tooMany);
      }
      ctx.close();
      return promise;
    }
    queued++;
    return promise.unvoid().addListener(onWritten);
  }
}
