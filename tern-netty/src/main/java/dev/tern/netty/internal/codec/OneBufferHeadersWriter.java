package dev.tern.netty.internal.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DecoratingHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersEncoder;

/**
 * Writes a HEADERS frame (and its CONTINUATION frames, if the block is larger than the peer's
 * maximum frame size) as one buffer: the header block is HPACK-encoded straight after room left for
 * the frame header, which is filled in once the block's length is known. Netty's frame writer
 * allocates the block and the frame header separately and writes each, twice the buffers for the
 * two header frames every call has.
 *
 * <p>The encoder is the one the wrapped {@link DefaultHttp2FrameWriter} was built with, so the
 * peer's SETTINGS (header table size, header list size) reach it through the writer's configuration
 * as usual, and the HPACK dynamic table stays one table. Frames with padding or a priority are
 * written by the wrapped writer.
 *
 * <p>Event loop only, like the codec it sits in.
 */
final class OneBufferHeadersWriter extends DecoratingHttp2FrameWriter {
  private static final int FLAG_END_STREAM = 0x1;
  private static final int FLAG_END_HEADERS = 0x4;

  private final DefaultHttp2FrameWriter delegate;
  private final Http2HeadersEncoder headersEncoder;

  /**
   * @param delegate a writer built with {@code headersEncoder}
   */
  OneBufferHeadersWriter(DefaultHttp2FrameWriter delegate, Http2HeadersEncoder headersEncoder) {
    super(delegate);
    this.delegate = delegate;
    this.headersEncoder = headersEncoder;
  }

  @Override
  public ChannelFuture writeHeaders(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int padding,
      boolean endStream,
      ChannelPromise promise) {
    if (padding != 0 || streamId <= 0) {
      return super.writeHeaders(ctx, streamId, headers, padding, endStream, promise);
    }
    int frameHeader = Http2CodecUtil.FRAME_HEADER_LENGTH;
    ByteBuf buf = ctx.alloc().buffer();
    try {
      buf.writerIndex(frameHeader);
      headersEncoder.encodeHeaders(streamId, headers, buf);
    } catch (Http2Exception | RuntimeException e) {
      buf.release();
      return promise.setFailure(e);
    }
    int blockLength = buf.readableBytes() - frameHeader;
    int maxFrameSize = delegate.maxFrameSize();
    int flags = endStream ? FLAG_END_STREAM : 0;
    if (blockLength <= maxFrameSize) {
      setFrameHeader(
          buf, 0, blockLength, Http2FrameTypes.HEADERS, flags | FLAG_END_HEADERS, streamId);
      return ctx.write(buf, promise);
    }
    ByteBuf frames;
    try {
      frames = split(ctx, buf, blockLength, maxFrameSize, flags, streamId);
    } catch (RuntimeException e) {
      return promise.setFailure(e);
    }
    return ctx.write(frames, promise);
  }

  /**
   * Re-lays a block too large for one frame as a HEADERS frame and CONTINUATION frames, each at
   * most {@code maxFrameSize} bytes of block; releases {@code encoded}.
   */
  private static ByteBuf split(
      ChannelHandlerContext ctx,
      ByteBuf encoded,
      int blockLength,
      int maxFrameSize,
      int flags,
      int streamId) {
    int frameHeader = Http2CodecUtil.FRAME_HEADER_LENGTH;
    int frames = (blockLength + maxFrameSize - 1) / maxFrameSize;
    ByteBuf out = ctx.alloc().buffer(blockLength + frames * frameHeader);
    try {
      encoded.skipBytes(frameHeader);
      byte type = Http2FrameTypes.HEADERS;
      int frameFlags = flags;
      while (encoded.isReadable()) {
        int length = Math.min(maxFrameSize, encoded.readableBytes());
        boolean last = length == encoded.readableBytes();
        int start = out.writerIndex();
        out.writerIndex(start + frameHeader);
        out.writeBytes(encoded, length);
        setFrameHeader(
            out, start, length, type, last ? frameFlags | FLAG_END_HEADERS : frameFlags, streamId);
        type = Http2FrameTypes.CONTINUATION;
        frameFlags = 0;
      }
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    } finally {
      encoded.release();
    }
  }

  private static void setFrameHeader(
      ByteBuf buf, int at, int length, byte type, int flags, int streamId) {
    buf.setMedium(at, length);
    buf.setByte(at + 3, type);
    buf.setByte(at + 4, flags);
    buf.setInt(at + 5, streamId);
  }
}
