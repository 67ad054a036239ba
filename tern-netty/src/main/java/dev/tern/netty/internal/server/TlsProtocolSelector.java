package dev.tern.netty.internal.server;

import dev.tern.netty.internal.io.NetworkFailures;
import dev.tern.netty.internal.io.TlsAttributes;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLHandshakeException;

/**
 * Waits for a TLS connection's handshake and installs the handlers of the protocol ALPN chose:
 * {@code h2} the gRPC (HTTP/2) handlers, {@code http/1.1} the HTTP/1.1 ones; then removes itself.
 * Without ALPN a {@link ProtocolDetector} looks at the first bytes: HTTP/1.1 is served (clients
 * that only speak it need not offer ALPN), HTTP/2 is refused as before HTTP/1.1 was served (gRPC
 * over TLS requires ALPN). Another protocol chosen by ALPN closes the connection (one FINE line).
 *
 * <p>One per connection; event loop only.
 */
final class TlsProtocolSelector extends ChannelInboundHandlerAdapter {
  private static final Logger logger = Logger.getLogger(ServerHandler.class.getName());

  private final NettyServerTransport transport;

  TlsProtocolSelector(NettyServerTransport transport) {
    this.transport = transport;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (!(evt instanceof SslHandshakeCompletionEvent)) {
      super.userEventTriggered(ctx, evt);
      return;
    }
    SslHandshakeCompletionEvent handshake = (SslHandshakeCompletionEvent) evt;
    if (!handshake.isSuccess()) {
      // The TLS handler closes the connection itself, after its alert went out.
      NetworkFailures.log(ctx, "TLS handshake failed", handshake.cause());
      return;
    }
    String protocol = ctx.pipeline().get(SslHandler.class).applicationProtocol();
    if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
      transport.useHttp1(ctx);
    } else if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
      transport.useHttp2(ctx);
    } else if (protocol == null) {
      // No ALPN: HTTP/1.1 clients that do not offer it (the JDK's HttpClient asked for HTTP/1.1)
      // are served; an HTTP/2 preface is refused as before.
      ctx.pipeline().addAfter(ctx.name(), null, new ProtocolDetector(transport, false));
    } else {
      logger.log(Level.FINE, TlsAttributes.alpnProblem(ctx.channel()));
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
    ctx.pipeline().remove(this);
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
      Logger.getLogger(ServerHandler.class.getName())
          .log(Level.WARNING, "Connection failed before its protocol was known; closing it", cause);
    } else if (!(network instanceof SSLHandshakeException
        || network instanceof NotSslRecordException)) {
      NetworkFailures.log(ctx, "closed", network);
    }
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    transport.terminated();
    super.channelInactive(ctx);
  }
}
