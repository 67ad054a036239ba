package dev.tern.netty.internal.client;

import dev.tern.netty.internal.http2.Http2Connection;
import dev.tern.netty.internal.write.FlushAfterRead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The write side of a client connection on Tern's HTTP/2 engine: the one buffer every frame of a
 * flush goes into, made when the first frame needs it and written at the flush with at most one
 * listener (no promise per frame). That listener tells the calls how many of the bytes they handed
 * to the engine left with it (those the engine still holds for want of flow-control credit are
 * reported at a later flush), which drives {@code isReady} through {@link
 * NettyClientStream#onSentBytes}.
 *
 * <p>A flush asked for while the engine reads a chunk into the buffer waits for the read's end
 * ({@link FlushAfterRead}: {@link #beginRead}, {@link #endRead}).
 *
 * <p>Event loop only; not thread-safe.
 */
final class ClientWrites extends FlushAfterRead {
  private final Http2Connection connection;
  private final List<ConnectionStream> reporting = new ArrayList<>();
  private ChannelHandlerContext ctx;
  private ByteBuf out;
  private boolean discarded;

  ClientWrites(Http2Connection connection) {
    this.connection = connection;
  }

  void attach(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /** The buffer of this flush (an empty one, never written, once the channel is gone). */
  ByteBuf out() {
    if (discarded) {
      return Unpooled.EMPTY_BUFFER;
    }
    if (out == null) {
      out = ctx.alloc().buffer();
    }
    return out;
  }

  /** {@code stream}'s call handed {@code bytes} of DATA to the engine. */
  void handed(ConnectionStream stream, int bytes) {
    stream.handedBytes += bytes;
    if (!stream.reporting) {
      stream.reporting = true;
      reporting.add(stream);
    }
  }

  /**
   * Writes this flush's buffer, if anything is in it, and flushes the channel.
   *
   * @param close close the channel once the buffer is written
   */
  @Override
  public void flush(boolean close) {
    if (holdBack(close)) {
      return;
    }
    if (ctx == null) {
      return;
    }
    ByteBuf written = out;
    out = null;
    Runnable reports = collectReports();
    if (written != null && !written.isReadable()) {
      written.release();
      written = null;
    }
    if (written == null) {
      if (reports != null) {
        reports.run();
      }
      ctx.flush();
      if (close) {
        ctx.close();
      }
      return;
    }
    ChannelFuture future = ctx.writeAndFlush(written);
    if (reports != null) {
      future.addListener(f -> reports.run());
    }
    if (close) {
      closeOnceWritten(future);
    }
  }

  /**
   * How long the last flush of a closing connection may wait for the server to read it: a server
   * that floods the connection and reads nothing would otherwise keep it open forever.
   */
  static final long CLOSE_GRACE_MILLIS = 2_000;

  /**
   * Closes the channel once {@code last} is written, or after {@link #CLOSE_GRACE_MILLIS} if it is
   * not; nothing more is read meanwhile (the closed engine would discard it).
   */
  private void closeOnceWritten(ChannelFuture last) {
    if (last.isDone()) {
      ctx.close();
      return;
    }
    ctx.channel().config().setAutoRead(false);
    ScheduledFuture<?> deadline =
        ctx.executor().schedule(() -> ctx.close(), CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    last.addListener(
        f -> {
          deadline.cancel(false);
          ctx.close();
        });
  }

  /** What the engine let go of since the last flush, to report once this flush is written. */
  private Runnable collectReports() {
    if (reporting.isEmpty()) {
      return null;
    }
    List<Runnable> reports = null;
    for (int i = reporting.size() - 1; i >= 0; i--) {
      ConnectionStream stream = reporting.get(i);
      long queued = connection.queuedBytes(stream.state.id());
      long sent = stream.handedBytes - queued - stream.reportedBytes;
      if (sent > 0) {
        stream.reportedBytes += sent;
        NettyClientStream call = stream.state.stream();
        int bytes = (int) sent;
        if (reports == null) {
          reports = new ArrayList<>();
        }
        reports.add(() -> call.onSentBytes(bytes));
      }
      if (queued == 0) {
        stream.reporting = false;
        reporting.remove(i);
      }
    }
    if (reports == null) {
      return null;
    }
    List<Runnable> all = reports;
    return () -> all.forEach(Runnable::run);
  }

  /** The channel is gone: releases the buffer of the flush that will not happen. */
  void discard() {
    discarded = true;
    if (out != null) {
      out.release();
      out = null;
    }
    for (ConnectionStream stream : reporting) {
      long unreported = stream.handedBytes - stream.reportedBytes;
      stream.reportedBytes = stream.handedBytes;
      stream.reporting = false;
      if (unreported > 0) {
        stream.state.stream().onSentBytes((int) unreported);
      }
    }
    reporting.clear();
  }
}
