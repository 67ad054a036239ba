package dev.tern.netty.internal.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DecoratingHttp2FrameWriter;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2FrameWriter;

/**
 * Writes a small DATA frame as one buffer: the 9-byte frame header and the payload copied after it,
 * written with the caller's promise. Netty's frame writer writes a frame header buffer and a slice
 * of the payload, each with a promise of a promise aggregator: five objects and two buffers for
 * what is, for a unary call, one small message. Larger frames (over {@link #MAX_COPIED} bytes,
 * where a copy costs more than those objects), padded frames and frames larger than the peer's
 * maximum frame size are left to the wrapped writer, which also splits them.
 *
 * <p>Event loop only, like the codec it sits in.
 */
final class OneBufferDataWriter extends DecoratingHttp2FrameWriter {
  /** The largest payload copied into the frame's buffer. */
  static final int MAX_COPIED = 4096;

  private static final int FLAG_END_STREAM = 0x1;

  OneBufferDataWriter(Http2FrameWriter delegate) {
    super(delegate);
  }

  @Override
  public ChannelFuture writeData(
      ChannelHandlerContext ctx,
      int streamId,
      ByteBuf data,
      int padding,
      boolean endStream,
      ChannelPromise promise) {
    int length = data.readableBytes();
    if (padding != 0
        || streamId <= 0
        || length > MAX_COPIED
        || length > configuration().frameSizePolicy().maxFrameSize()) {
      return super.writeData(ctx, streamId, data, padding, endStream, promise);
    }
    ByteBuf frame = null;
    try {
      frame = ctx.alloc().buffer(Http2CodecUtil.FRAME_HEADER_LENGTH + length);
      frame.writeMedium(length);
      frame.writeByte(Http2FrameTypes.DATA);
      frame.writeByte(endStream ? FLAG_END_STREAM : 0);
      frame.writeInt(streamId);
      frame.writeBytes(data, data.readerIndex(), length);
    } catch (RuntimeException e) {
      if (frame != null) {
        frame.release();
      }
      return promise.setFailure(e);
    } finally {
      data.release();
    }
    return ctx.write(frame, promise);
  }
}
