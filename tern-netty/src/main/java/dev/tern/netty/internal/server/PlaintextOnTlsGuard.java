package dev.tern.netty.internal.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;

/**
 * Sits before a TLS port's TLS handler and ends a connection whose client speaks plaintext (its
 * first byte is an upper-case letter, as HTTP/1.1 methods and the HTTP/2 preface begin, where a TLS
 * record begins with its type, 0x14 to 0x17) without a TCP reset: the TLS handler closes such a
 * connection at once, while the client's next bytes may still be on their way, and a close with
 * bytes unread (or arriving after it) resets the connection, so the client would see "connection
 * reset" instead of a close, and could not tell that the server expects TLS. Here the close becomes
 * a half-close (FIN), what still arrives is dropped, and the connection closes when the client
 * closes its side or after {@link #DRAIN_MILLIS}.
 *
 * <p>A TLS client's connection loses this handler with its first byte, so nothing of it stays on
 * the path of TLS traffic. One per connection; event loop only.
 */
final class PlaintextOnTlsGuard extends ChannelDuplexHandler {
  /** How long a plaintext client has to close its side before the server closes regardless. */
  static final long DRAIN_MILLIS = 1_000;

  private boolean plaintext;
  private boolean draining;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    assert ctx.executor().inEventLoop();
    if (draining) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (!plaintext && msg instanceof ByteBuf && ((ByteBuf) msg).isReadable()) {
      byte first = ((ByteBuf) msg).getByte(((ByteBuf) msg).readerIndex());
      if (first >= 'A' && first <= 'Z') {
        plaintext = true;
      } else {
        ctx.pipeline().remove(this);
      }
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (!plaintext || draining || !(ctx.channel() instanceof DuplexChannel)) {
      ctx.close(promise);
      return;
    }
    draining = true;
    ctx.flush();
    ((DuplexChannel) ctx.channel()).shutdownOutput();
    // The client's close (EOF) closes the channel, half-closure not being allowed.
    ctx.channel().config().setAutoRead(true);
    ctx.executor().schedule(() -> ctx.close(promise), DRAIN_MILLIS, TimeUnit.MILLISECONDS);
  }
}
