package dev.tern.netty.internal.server;

import dev.tern.netty.internal.exchange.Http1ServerHandler;
import dev.tern.netty.internal.io.NetworkFailures;
import dev.tern.netty.internal.io.TlsAttributes;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.NotSslRecordException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLHandshakeException;

/**
 * Tells, from the first bytes of a connection, whether it speaks HTTP/2 with prior knowledge (it
 * starts with the client preface, RFC 9113 section 3.4) or HTTP/1.1 (it starts with a request line,
 * judged by {@link RequestLineSniffer}), installs the handlers of that protocol through the {@link
 * NettyServerTransport}, and removes itself, passing on every byte it saw. Bytes that are neither
 * go to the HTTP/2 handler, which refuses them as a corrupt preface with a GOAWAY (PROTOCOL_ERROR),
 * as a server speaking only HTTP/2 would. It decides as soon as the bytes tell (a request line's
 * first line, the preface's first differing byte, or the first byte no request line can hold), so
 * nothing waits longer than the client's first packet.
 *
 * <p>It reads cleartext connections, and TLS connections whose client offered no ALPN (see {@link
 * TlsProtocolSelector}): there HTTP/1.1 is served, and HTTP/2 is refused as it was before HTTP/1.1
 * was served, since gRPC over TLS requires ALPN.
 *
 * <p>One per connection; event loop only.
 */
final class ProtocolDetector extends ByteToMessageDecoder {
  private static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private static final Logger logger = Logger.getLogger(ServerHandler.class.getName());

  private final NettyServerTransport transport;
  private final boolean http2Allowed;

  /**
   * @param http2Allowed false on a TLS connection without ALPN: HTTP/2 closes it (one FINE line)
   */
  ProtocolDetector(NettyServerTransport transport, boolean http2Allowed) {
    this.transport = transport;
    this.http2Allowed = http2Allowed;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    assert ctx.executor().inEventLoop();
    int seen = Math.min(in.readableBytes(), PREFACE.length);
    for (int i = 0; i < seen; i++) {
      if (in.getByte(in.readerIndex() + i) != PREFACE[i]) {
        notPreface(ctx, in);
        return;
      }
    }
    if (seen == PREFACE.length) {
      if (!http2Allowed) {
        logger.log(Level.FINE, TlsAttributes.alpnProblem(ctx.channel()));
        in.skipBytes(in.readableBytes());
        ctx.close();
        return;
      }
      transport.useHttp2BeforeItsBytes(ctx);
      ctx.pipeline().remove(this);
    }
  }

  private void notPreface(ChannelHandlerContext ctx, ByteBuf in) {
    switch (RequestLineSniffer.classify(in, Http1ServerHandler.MAX_INITIAL_LINE)) {
      case HTTP1 -> {
        transport.useHttp1(ctx);
        ctx.pipeline().remove(this);
      }
      case NOT_HTTP1 -> {
        if (http2Allowed) {
          transport.useHttp2BeforeItsBytes(ctx);
          ctx.pipeline().remove(this);
        } else {
          logger.log(
              Level.FINE,
              "{0}: closing a TLS connection that spoke neither HTTP/1.1 nor HTTP/2",
              ctx.channel());
          in.skipBytes(in.readableBytes());
          ctx.close();
        }
      }
      case UNDECIDED -> {
        // A request line has begun; the rest of it is on its way.
      }
    }
  }

  /**
   * A failure before the protocol is known: an I/O or TLS failure (a failed handshake was logged
   * already) closes the connection with at most one FINE line, as the HTTP/2 handler does; anything
   * else is logged as a warning first.
   */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    IOException network = NetworkFailures.ioFailure(cause);
    if (network == null) {
      logger.log(
          Level.WARNING, "Connection failed before its protocol was known; closing it", cause);
    } else if (!(network instanceof SSLHandshakeException
        || network instanceof NotSslRecordException)) {
      NetworkFailures.log(ctx, "closed", network);
    }
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    // Closed before it said which protocol: no handler of either is there to report it.
    transport.terminated();
    super.channelInactive(ctx);
  }
}
