package dev.tern.netty.testing;

import dev.tern.netty.internal.http2.HeaderSink;
import dev.tern.netty.internal.http2.Http2Connection;
import dev.tern.netty.internal.http2.Http2ConnectionListener;
import dev.tern.netty.internal.http2.Http2Limits;
import dev.tern.netty.internal.http2.Http2Stream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;

/**
 * A server-side channel handler on Tern's own HTTP/2 engine that answers every request with one
 * fixed response (200, a short text body) once the request has ended, and consumes every request
 * body. It is the engine's own conformance harness (EngineH2specTest runs h2spec against it, apart
 * from the gRPC server that H2specTest checks); it validates nothing of a request's headers (RFC
 * 9113 section 8 is the transport's).
 *
 * <p>Each read is given to {@link Http2Connection#receive} with one output buffer, written and
 * flushed after the read; when the connection is over, the channel is closed once that buffer is
 * flushed. One handler per channel, on its event loop; not thread-safe (nor shared).
 */
public final class FixedResponseHandler extends ChannelInboundHandlerAdapter
    implements Http2ConnectionListener {
  private static final byte[][] RESPONSE_HEADERS = {
    bytes(":status"), bytes("200"), bytes("content-type"), bytes("text/plain")
  };

  private final Http2Connection connection;
  private final byte[] body;
  private ByteBuf out;

  /**
   * @param body the response body sent on every stream
   */
  public FixedResponseHandler(Http2Limits limits, byte[] body) {
    this.connection = new Http2Connection(true, limits, this, System::nanoTime);
    this.body = body.clone();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    out = ctx.alloc().buffer();
    connection.start(out);
    flush(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    out = ctx.alloc().buffer();
    try {
      connection.receive(in, out);
    } finally {
      in.release();
    }
    flush(ctx);
  }

  private void flush(ChannelHandlerContext ctx) {
    ByteBuf written = out;
    out = null;
    if (connection.isClosed()) {
      ctx.writeAndFlush(written).addListener(ChannelFutureListener.CLOSE);
    } else if (written.isReadable()) {
      ctx.writeAndFlush(written);
    } else {
      written.release();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    connection.close();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  private void respond(int streamId) {
    connection.sendHeaders(out, streamId, RESPONSE_HEADERS, false);
    ByteBuf data = out.alloc().buffer(body.length).writeBytes(body);
    connection.sendData(out, streamId, data, true);
  }

  // Http2ConnectionListener, called from within receive (out is set).

  @Override
  public HeaderSink onHeadersStart(Http2Stream stream, boolean trailers) {
    return (name, value, sensitive) -> {};
  }

  @Override
  public void onHeadersEnd(Http2Stream stream, boolean trailers, boolean endStream) {
    if (endStream) {
      respond(stream.id());
    }
  }

  @Override
  public void onHeaderListTooLarge(Http2Stream stream, boolean trailers, boolean endStream) {
    connection.sendHeaders(out, stream.id(), new byte[][] {bytes(":status"), bytes("431")}, true);
  }

  @Override
  public void onData(Http2Stream stream, ByteBuf data, int flowControlled, boolean endStream) {
    data.release();
    connection.consumed(out, stream.id(), flowControlled);
    if (endStream) {
      respond(stream.id());
    }
  }

  @Override
  public void onStreamReset(Http2Stream stream, long errorCode, boolean byPeer) {}

  @Override
  public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {}

  @Override
  public void onConnectionClosed(long errorCode, String reason) {}
}
