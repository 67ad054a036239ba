package dev.tern.netty.internal.server;

import io.netty.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * What one stream handed to Tern's HTTP/2 engine and has not yet been told is sent: a gRPC call's
 * ({@link ConnectionCall}) or an exchange's ({@link ExchangeOutput.ExchangeStream}). {@link
 * ServerWrites} asks it at each flush, with the bytes the engine still holds for want of
 * flow-control credit. It is also what the stream's slot holds ({@code Http2Stream#attachment}),
 * with the request body's count against its {@code content-length}.
 *
 * <p>Event loop only; not thread-safe.
 */
abstract class HandedWrites {
  /** Whether it is in {@link ServerWrites}' list of streams with something to report. */
  boolean pending;

  /** The request body counted against its declared {@code content-length}; null if none was. */
  DeclaredLength declaredLength;

  abstract int streamId();

  /**
   * At a flush: what left since the last one, given the stream's DATA still queued in the engine.
   *
   * @param onDataSent to run if response DATA left
   * @return what to report once the flush's buffer is written (or failed to be), or null
   */
  abstract Consumer<Future<?>> collect(long queued, Runnable onDataSent);

  /** Whether everything handed to the engine has been reported. */
  abstract boolean allReported();
}
