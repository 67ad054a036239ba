package dev.tern.netty.internal.client;

import dev.tern.netty.internal.http2.Http2Connection;
import dev.tern.netty.internal.write.ConnectionWrites;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The client's write side of a connection on Tern's HTTP/2 engine ({@link ConnectionWrites}: the
 * one buffer of a flush, the flushes held back during a read, the writes the network fails),
 * written with at most one listener per flush (no promise per frame). That listener tells the calls
 * how many of the bytes they handed to the engine left with it (those the engine still holds for
 * want of flow-control credit are reported at a later flush), which drives {@code isReady} through
 * {@link NettyClientStream#onSentBytes}.
 *
 * <p>Event loop only; not thread-safe.
 */
final class ClientWrites extends ConnectionWrites {
  private final Http2Connection connection;
  private final Consumer<IOException> onNetworkFailure;
  private final List<ConnectionStream> reporting = new ArrayList<>();

  /**
   * @param onNetworkFailure called when a write fails for the network, before the channel closes
   */
  ClientWrites(Http2Connection connection, Consumer<IOException> onNetworkFailure) {
    this.connection = connection;
    this.onNetworkFailure = onNetworkFailure;
  }

  @Override
  protected void receive(ByteBuf in, ByteBuf out) {
    connection.receive(in, out);
  }

  /** {@code stream}'s call handed {@code bytes} of DATA to the engine. */
  void handed(ConnectionStream stream, int bytes) {
    stream.handedBytes += bytes;
    if (!stream.reporting) {
      stream.reporting = true;
      reporting.add(stream);
    }
  }

  @Override
  protected void flush(ByteBuf written, boolean close) {
    ChannelHandlerContext ctx = ctx();
    Runnable reports = collectReports();
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
    ChannelFuture future = write(written);
    if (reports != null) {
      // One listener for both (a promise's second listener costs it a list).
      future.addListener(
          f -> {
            checkNetworkFailure(f);
            reports.run();
          });
    } else {
      future.addListener(networkFailures());
    }
    if (close) {
      closeOnceWritten(future);
    }
  }

  @Override
  protected void onNetworkFailure(IOException failure) {
    onNetworkFailure.accept(failure);
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
      ctx().close();
      return;
    }
    ChannelHandlerContext ctx = ctx();
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
    // Forward, keeping the streams still queued at the front. Counted down with removals inside,
    // this loop failed C2's loop-limit check in the compiled flush that inlines it, which was then
    // compiled again: 150 ms more of the core a new client's first calls run on.
    int count = reporting.size();
    int kept = 0;
    for (int i = 0; i < count; i++) {
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
      } else {
        reporting.set(kept++, stream);
      }
    }
    if (kept == 0) {
      reporting.clear();
    } else if (kept < count) {
      reporting.subList(kept, count).clear();
    }
    if (reports == null) {
      return null;
    }
    List<Runnable> all = reports;
    return () -> all.forEach(Runnable::run);
  }

  @Override
  protected void discardReports() {
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
