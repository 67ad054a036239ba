package dev.tern.netty.internal.server;

import dev.tern.netty.internal.http2.Http2Connection;
import dev.tern.netty.internal.write.FlushAfterRead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The write side of a connection on Tern's HTTP/2 engine: the one buffer every frame of a flush is
 * written into, made when the first frame needs it and written to the channel at the flush, with at
 * most one listener per flush (no promise per frame).
 *
 * <p>The calls and exchanges learn what left through that listener: for each stream that handed
 * response frames to the engine ({@link HandedWrites}), the flush counts what the engine no longer
 * holds for want of flow-control credit, and once the buffer is written reports it (for a call,
 * {@link ConnectionCall}; for an exchange, its write futures).
 *
 * <p>A flush asked for while the engine reads a chunk into the buffer waits for the read's end
 * ({@link FlushAfterRead}: {@link #beginRead}, {@link #endRead}).
 *
 * <p>Event loop only; not thread-safe.
 */
final class ServerWrites extends FlushAfterRead {
  private final Http2Connection connection;
  private final Runnable onDataSent;

  /** Sized for a stream or two per flush; it grows for more. */
  private final List<HandedWrites> pending = new ArrayList<>(2);

  private ChannelHandlerContext ctx;
  private ByteBuf out;

  /** The channel is gone: nothing is written any more (the closed engine writes nothing). */
  private boolean discarded;

  /**
   * @param onDataSent called at a flush that carries response DATA the engine let go of
   */
  ServerWrites(Http2Connection connection, Runnable onDataSent) {
    this.connection = connection;
    this.onDataSent = onDataSent;
  }

  void attach(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /** The buffer of this flush (an empty one, never written to, once the channel is gone). */
  ByteBuf out() {
    if (discarded) {
      return Unpooled.EMPTY_BUFFER;
    }
    if (out == null) {
      out = ctx.alloc().buffer();
    }
    return out;
  }

  /** {@code stream} handed frames to the engine: report them at a flush once they leave. */
  void handed(HandedWrites stream) {
    if (!stream.pending) {
      stream.pending = true;
      pending.add(stream);
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
    ByteBuf written = out;
    out = null;
    List<Consumer<Future<?>>> reports = collectReports();
    if (written != null && !written.isReadable()) {
      written.release();
      written = null;
    }
    if (written == null && reports == null) {
      ctx.flush();
      if (close) {
        ctx.close();
      }
      return;
    }
    ChannelFuture future = ctx.writeAndFlush(written != null ? written : ctx.alloc().buffer(0));
    if (reports != null) {
      future.addListener(
          f -> {
            for (Consumer<Future<?>> report : reports) {
              report.accept(f);
            }
            if (!f.isSuccess()) {
              ctx.close();
            }
          });
    }
    if (close) {
      future.addListener(f -> ctx.close());
    }
  }

  /** What the engine let go of since the last flush, to report when this flush is written. */
  private List<Consumer<Future<?>>> collectReports() {
    if (pending.isEmpty()) {
      return null;
    }
    List<Consumer<Future<?>>> reports = null;
    for (int i = pending.size() - 1; i >= 0; i--) {
      HandedWrites stream = pending.get(i);
      Consumer<Future<?>> report =
          stream.collect(connection.queuedBytes(stream.streamId()), onDataSent);
      if (report != null) {
        if (reports == null) {
          reports = new ArrayList<>();
        }
        reports.add(report);
      }
      if (stream.allReported()) {
        stream.pending = false;
        pending.remove(i);
      }
    }
    return reports;
  }

  /** The channel is gone: releases the buffer of the flush that will not happen. */
  void discard() {
    discarded = true;
    if (out != null) {
      out.release();
      out = null;
    }
    pending.clear();
  }
}
