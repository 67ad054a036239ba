package dev.tern.netty.internal.client;

import dev.tern.Status;
import dev.tern.spi.ClientTransport.PingCallback;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The transport's measured pings: at most one PING in flight, shared by every caller that asks
 * while it is outstanding; its ack completes them all with the round-trip time, each on its own
 * executor. A failure (write error, connection gone) fails them with UNAVAILABLE, never a raw I/O
 * exception.
 *
 * <p>Event loop only.
 */
final class PingTracker {
  private static final Logger logger = Logger.getLogger(PingTracker.class.getName());

  private long payload;
  private long startNanos;
  private List<Pending> pending;

  /**
   * Sends a PING through {@code writer} (given its payload) unless one is outstanding, and
   * completes {@code callback} on {@code executor} when it is answered. A writer that fails calls
   * {@link #failAll}.
   */
  void ping(LongConsumer writer, PingCallback callback, Executor executor) {
    if (pending == null) {
      pending = new ArrayList<>(1);
      payload = ThreadLocalRandom.current().nextLong();
      startNanos = System.nanoTime();
      writer.accept(payload);
    }
    pending.add(new Pending(callback, executor));
  }

  /** A PING ack arrived; completes the outstanding ping if it is ours. */
  void onAck(long data) {
    if (pending != null && data == payload) {
      long rtt = System.nanoTime() - startNanos;
      List<Pending> done = pending;
      pending = null;
      for (Pending p : done) {
        run(p.executor, () -> p.callback.onSuccess(rtt));
      }
    }
  }

  void failAll(Status status) {
    List<Pending> failed = pending;
    pending = null;
    if (failed != null) {
      for (Pending p : failed) {
        fail(p.callback, p.executor, status);
      }
    }
  }

  static void fail(PingCallback callback, Executor executor, Status status) {
    run(executor, () -> callback.onFailure(status));
  }

  private static void run(Executor executor, Runnable task) {
    try {
      executor.execute(task);
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "ping callback executor rejected the callback", e);
    }
  }

  /** One ping callback and where to run it. */
  private static final class Pending {
    final PingCallback callback;
    final Executor executor;

    Pending(PingCallback callback, Executor executor) {
      this.callback = callback;
      this.executor = executor;
    }
  }
}
