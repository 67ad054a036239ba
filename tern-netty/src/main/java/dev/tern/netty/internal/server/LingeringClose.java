package dev.tern.netty.internal.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection that a peer's errors or a graceful shutdown ended without losing the frames
 * that say why.
 *
 * <p>A socket closed while bytes the peer sent are still unread makes the kernel reset the
 * connection at once instead of ending it after what is still queued: the frames not yet on the
 * wire (for a peer that reads slowly, the GOAWAY among them) are dropped, and a client that writes
 * into the reset fails before it reads what already arrived. A peer that floods (the case that ends
 * connections with ENHANCE_YOUR_CALM) has always sent more; a client whose stream a draining server
 * refused may still be sending its DATA when the last GOAWAY goes out, and must read that refusal
 * to retry the call elsewhere. So instead of closing at once, this handler, put first in the
 * pipeline when the connection error or the graceful shutdown's end is sent:
 *
 * <ul>
 *   <li>half-closes the connection once everything queued before the close is written (the FIN
 *       follows the GOAWAY);
 *   <li>reads and discards whatever the peer still sends, nothing of it decoded;
 *   <li>closes when the peer closes its side or after {@link #LINGER_MILLIS}, whichever comes
 *       first. Further requests to close (a server shutting down makes one) complete with that
 *       close.
 * </ul>
 *
 * <p>Used on the channel's event loop only, like every handler; {@link #arm} too.
 */
final class LingeringClose extends ChannelDuplexHandler {
  /** The longest a half-closed connection waits for its peer to close. */
  static final long LINGER_MILLIS = 3_000;

  private ChannelPromise closePromise;
  private ScheduledFuture<?> deadline;

  private LingeringClose() {}

  /** Makes the next close of {@code channel} linger; nothing for channels without half-close. */
  static void arm(Channel channel) {
    if (channel instanceof DuplexChannel
        && channel.isActive()
        && channel.pipeline().get(LingeringClose.class) == null) {
      channel.pipeline().addFirst(new LingeringClose());
    }
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (!ctx.channel().isActive()) {
      closeNow(ctx, promise);
      return;
    }
    if (closePromise != null) {
      // Closing already: done when that is.
      if (!promise.isVoid()) {
        ctx.channel().closeFuture().addListener(f -> promise.trySuccess());
      }
      return;
    }
    closePromise = promise;
    // An empty write completes after every write before it: then the FIN follows the GOAWAY.
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER)
        .addListener(
            written -> {
              DuplexChannel channel = (DuplexChannel) ctx.channel();
              if (written.isSuccess() && channel.isActive() && !channel.isOutputShutdown()) {
                channel.shutdownOutput();
              }
            });
    deadline =
        ctx.executor()
            .schedule(() -> closeNow(ctx, ctx.newPromise()), LINGER_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void closeNow(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (deadline != null) {
      deadline.cancel(false);
    }
    ChannelPromise lingering = closePromise;
    ctx.close(promise);
    if (lingering != null && lingering != promise) {
      ctx.channel().closeFuture().addListener(f -> lingering.trySuccess());
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closePromise != null) {
      ReferenceCountUtil.release(msg);
    } else {
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (closePromise == null) {
      ctx.fireChannelReadComplete();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (closePromise != null) {
      // The peer reset the connection while it lingered: it is over either way.
      closeNow(ctx, ctx.newPromise());
    } else {
      ctx.fireExceptionCaught(cause);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (closePromise != null) {
      // The peer closed its side (Netty then closes the channel itself).
      if (deadline != null) {
        deadline.cancel(false);
      }
      closePromise.trySuccess();
    }
    ctx.fireChannelInactive();
  }
}
