package dev.tern.netty.internal.server;

import dev.tern.netty.internal.http2.Http2Connection;
import dev.tern.netty.internal.write.ConnectionWrites;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The server's write side of a connection on Tern's HTTP/2 engine ({@link ConnectionWrites}: the
 * one buffer of a flush, the flushes held back during a read, the writes the network fails), with
 * at most one listener per flush (no promise per frame).
 *
 * <p>The calls and exchanges learn what left through that listener: for each stream that handed
 * response frames to the engine ({@link HandedWrites}), the flush counts what the engine no longer
 * holds for want of flow-control credit, and once the buffer is written reports it (for a call,
 * {@link ConnectionCall}; for an exchange, its write futures).
 *
 * <p>Event loop only; not thread-safe.
 */
final class ServerWrites extends ConnectionWrites {
  private final Http2Connection connection;
  private final Runnable onDataSent;
  private final Consumer<IOException> onNetworkFailure;

  /** Sized for a stream or two per flush; it grows for more. */
  private final List<HandedWrites> pending = new ArrayList<>(2);

  /**
   * @param onDataSent called at a flush that carries response DATA the engine let go of
   * @param onNetworkFailure called when a write fails for the network, before the channel closes
   */
  ServerWrites(
      Http2Connection connection, Runnable onDataSent, Consumer<IOException> onNetworkFailure) {
    this.connection = connection;
    this.onDataSent = onDataSent;
    this.onNetworkFailure = onNetworkFailure;
  }

  @Override
  protected void receive(ByteBuf in, ByteBuf out) {
    connection.receive(in, out);
  }

  /** {@code stream} handed frames to the engine: report them at a flush once they leave. */
  void handed(HandedWrites stream) {
    if (!stream.pending) {
      stream.pending = true;
      pending.add(stream);
    }
  }

  @Override
  protected void flush(ByteBuf written, boolean close) {
    ChannelHandlerContext ctx = ctx();
    List<Consumer<Future<?>>> reports = collectReports();
    if (written == null && reports == null) {
      ctx.flush();
      if (close) {
        ctx.close();
      }
      return;
    }
    ChannelFuture future = write(written != null ? written : ctx.alloc().buffer(0));
    if (reports == null && !close) {
      future.addListener(networkFailures());
      return;
    }
    // One listener for all it has to do (a promise's second listener costs it a list).
    future.addListener(
        f -> {
          checkNetworkFailure(f);
          if (reports != null) {
            for (Consumer<Future<?>> report : reports) {
              report.accept(f);
            }
          }
          if (close || !f.isSuccess()) {
            ctx.close();
          }
        });
  }

  @Override
  protected void onNetworkFailure(IOException failure) {
    onNetworkFailure.accept(failure);
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

  @Override
  protected void discardReports() {
    pending.clear();
  }
}
