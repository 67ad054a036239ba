package dev.tern.netty.internal.server;

import dev.tern.netty.internal.http2.Http2Connection;
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
 * <p>The calls' halves learn what left through that listener: for each call that handed response
 * DATA or trailers to the engine, the flush counts what the engine no longer holds for want of
 * flow-control credit, and once the buffer is written reports those bytes ({@link
 * NettyServerStream#onSentBytes}, which drives {@code isReady}) and the trailers ({@link
 * ServerStreamState#onTrailersWritten}, which ends the call OK, or UNAVAILABLE if the write
 * failed).
 *
 * <p>Event loop only; not thread-safe.
 */
final class EngineWrites {
  private final Http2Connection connection;
  private final Runnable onDataSent;
  private final List<EngineCall> pending = new ArrayList<>();
  private ChannelHandlerContext ctx;
  private ByteBuf out;

  /** The channel is gone: nothing is written any more (the closed engine writes nothing). */
  private boolean discarded;

  /**
   * @param onDataSent called at a flush that carries response DATA the engine let go of
   */
  EngineWrites(Http2Connection connection, Runnable onDataSent) {
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

  /** {@code call} handed DATA or trailers to the engine: report them at a flush once they leave. */
  void handed(EngineCall call) {
    if (!call.pending) {
      call.pending = true;
      pending.add(call);
    }
  }

  /**
   * Writes this flush's buffer, if anything is in it, and flushes the channel.
   *
   * @param close close the channel once the buffer is written
   */
  void flush(boolean close) {
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
      EngineCall call = pending.get(i);
      int id = call.state.id();
      long queued = connection.queuedBytes(id);
      long sent = call.handedBytes - queued - call.reportedBytes;
      boolean trailers = call.trailersHanded && !call.trailersReported && queued == 0;
      if (sent > 0) {
        onDataSent.run();
      }
      if (sent > 0 || trailers) {
        call.reportedBytes += Math.max(0, sent);
        call.trailersReported |= trailers;
        if (reports == null) {
          reports = new ArrayList<>();
        }
        reports.add(report(call, (int) Math.max(0, sent), trailers));
      }
      if (call.allReported()) {
        call.pending = false;
        pending.remove(i);
      }
    }
    return reports;
  }

  private static Consumer<Future<?>> report(EngineCall call, int bytes, boolean trailers) {
    return written -> {
      NettyServerStream stream = call.state.stream();
      if (bytes > 0 && stream != null) {
        stream.onSentBytes(bytes);
      }
      if (trailers) {
        call.state.onTrailersWritten(written.isSuccess(), written.cause());
      }
    };
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
