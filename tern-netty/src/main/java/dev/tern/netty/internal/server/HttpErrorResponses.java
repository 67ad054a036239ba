package dev.tern.netty.internal.server;

import dev.tern.Status;
import dev.tern.netty.internal.codec.OutboundHeaders;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;

/**
 * The server's answers to requests it refuses before they become calls: an HTTP status with a gRPC
 * status, ending the stream.
 *
 * <p>Stateless; called on the connection's event loop, as its encoder requires.
 */
final class HttpErrorResponses {
  private HttpErrorResponses() {}

  /**
   * Answers a gRPC request that cannot be served (a bad path, metadata over the limit): headers
   * only, with END_STREAM, which gRPC clients read as trailers.
   */
  static void write(
      Http2ConnectionEncoder encoder,
      ChannelHandlerContext ctx,
      int streamId,
      int httpStatus,
      Status status) {
    encoder.writeHeaders(
        ctx, streamId, OutboundHeaders.httpError(httpStatus, status), 0, true, ctx.newPromise());
  }

  /**
   * Answers a request that is not gRPC at all (a method other than POST, a content-type other than
   * gRPC's), from a browser or an HTTP tool rather than a gRPC client: the HTTP status with a gRPC
   * status in the headers, as for any refused request, and the status's description as a short
   * {@code text/plain} body, so such a client shows the reason. gRPC clients take the HTTP status
   * and do not read the body.
   */
  static void writeWithBody(
      Http2ConnectionEncoder encoder,
      ChannelHandlerContext ctx,
      int streamId,
      int httpStatus,
      Status status) {
    encoder.writeHeaders(
        ctx,
        streamId,
        OutboundHeaders.httpErrorWithBody(httpStatus, status),
        0,
        false,
        ctx.newPromise());
    String text = httpStatus + " " + status.getDescription() + "\n";
    encoder.writeData(
        ctx, streamId, ByteBufUtil.writeUtf8(ctx.alloc(), text), 0, true, ctx.newPromise());
  }
}
