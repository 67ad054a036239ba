package dev.tern.netty.internal.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * Writes a small DATA frame straight to the frame writer when the HTTP/2 flow controller would
 * write all of it at its next flush anyway: nothing of its stream is queued in the controller, the
 * stream's and the connection's send windows both cover it, and the channel is writable. The
 * windows are charged exactly as the controller charges them. Queued through the controller, a
 * unary response's one message costs a flow-controlled write with a buffer queue, a promise
 * notifier and a promise of its own, and the trailers behind it a flow-controlled write as well
 * (they may not overtake the DATA); written here, neither is made and the trailers go straight out
 * after it.
 *
 * <p>Event loop only, like the codec it uses.
 */
public final class UnqueuedDataWriter {
  private UnqueuedDataWriter() {}

  /**
   * Writes {@code data} (not END_STREAM) on {@code streamId} if it can leave now without the flow
   * controller; otherwise does nothing.
   *
   * @return whether {@code data} was written (and {@code promise} handed on with it)
   */
  public static boolean tryWrite(
      ChannelHandlerContext ctx,
      Http2ConnectionEncoder encoder,
      int streamId,
      ByteBuf data,
      ChannelPromise promise) {
    int length = data.readableBytes();
    if (length > OneBufferDataWriter.MAX_COPIED || !ctx.channel().isWritable()) {
      return false;
    }
    Http2Connection connection = encoder.connection();
    Http2Stream stream = connection.stream(streamId);
    if (stream == null) {
      return false;
    }
    Http2Stream.State state = stream.state();
    if (state != Http2Stream.State.OPEN && state != Http2Stream.State.HALF_CLOSED_REMOTE) {
      return false;
    }
    Http2RemoteFlowController flow = encoder.flowController();
    Http2Stream connectionStream = connection.connectionStream();
    if (flow.hasFlowControlled(stream)
        || flow.windowSize(stream) < length
        || flow.windowSize(connectionStream) < length) {
      return false;
    }
    try {
      flow.incrementWindowSize(connectionStream, -length);
      flow.incrementWindowSize(stream, -length);
    } catch (Http2Exception e) {
      // Only a window growing past 2^31-1 is an error; these shrink.
      throw new IllegalStateException("shrinking a send window failed", e);
    }
    encoder.frameWriter().writeData(ctx, streamId, data, 0, false, promise);
    return true;
  }
}
