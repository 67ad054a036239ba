package dev.tern.netty.internal.server;

import io.netty.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * A call on Tern's HTTP/2 engine, as {@link ServerHandler} tracks it beside the call's own {@link
 * ServerStreamState}: the response bytes handed to the engine that have not been reported sent yet
 * (the engine may hold them until the client gives flow-control credit). Once they left, the stream
 * hears of them ({@link NettyServerStream#onSentBytes}, which drives {@code isReady}), and of the
 * trailers ({@link ServerStreamState#onTrailersWritten}, which ends the call OK, or UNAVAILABLE if
 * the write failed). The call's stream holds it in its slot ({@code Http2Stream#attachment}) while
 * the stream is active; the connection's {@link ConnectionCalls} hold it until the call ends.
 *
 * <p>Event loop only; not thread-safe.
 */
final class ConnectionCall extends HandedWrites {
  final ServerStreamState state;

  /** Response DATA bytes given to the engine. */
  long handedBytes;

  /** Of those, the bytes reported to the stream as sent. */
  long reportedBytes;

  /** Whether the trailers were given to the engine, and whether that was reported. */
  boolean trailersHanded;

  boolean trailersReported;

  /** Its neighbours in {@link ConnectionCalls}' list, and whether it is in it. */
  ConnectionCall previous;

  ConnectionCall next;
  boolean listed;

  ConnectionCall(ServerStreamState state) {
    this.state = state;
  }

  @Override
  int streamId() {
    return state.id();
  }

  @Override
  Consumer<Future<?>> collect(long queued, Runnable onDataSent) {
    long sent = handedBytes - queued - reportedBytes;
    boolean trailers = trailersHanded && !trailersReported && queued == 0;
    if (sent > 0) {
      onDataSent.run();
    }
    if (sent <= 0 && !trailers) {
      return null;
    }
    reportedBytes += Math.max(0, sent);
    trailersReported |= trailers;
    int bytes = (int) Math.max(0, sent);
    return written -> {
      NettyServerStream stream = state.stream();
      if (bytes > 0 && stream != null) {
        stream.onSentBytes(bytes);
      }
      if (trailers) {
        state.onTrailersWritten(written.isSuccess(), written.cause());
      }
    };
  }

  @Override
  boolean allReported() {
    return reportedBytes == handedBytes && trailersHanded == trailersReported;
  }
}
