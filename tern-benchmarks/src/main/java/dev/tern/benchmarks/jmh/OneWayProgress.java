package dev.tern.benchmarks.jmh;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * What the benchmark thread of a {@link OneWayStream} waits for, whichever system carries the call:
 * the sending call to become ready, the receiver to have counted so many messages, the call to end.
 * Neutral ground, so both systems' streams wait in exactly the same way.
 *
 * <p>Threads: one sender at a time calls {@link #sent()} (the benchmark thread, or the server's
 * call callbacks, which the runtime serializes); the receiver's callbacks call {@link #received()};
 * the sending call's on-ready handler calls {@link #signalReady()}; the benchmark thread waits. The
 * counters are atomic or single-writer volatiles; {@code lock} guards only the ready signal and the
 * pause flag, and nothing else is done while holding it.
 */
final class OneWayProgress {
  /** How long a wait may go without progress before it fails instead of hanging the benchmark. */
  static final int TIMEOUT_SECONDS = 30;

  private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);

  private final String name;
  private final AtomicLong received = new AtomicLong();
  private final CompletableFuture<Long> end = new CompletableFuture<>();
  private final Object lock = new Object();

  /** Written by the one sender of the moment only. */
  private volatile long sent;

  /** The count the waiting thread needs, or MAX_VALUE while nobody waits for deliveries. */
  private volatile long awaited = Long.MAX_VALUE;

  private volatile Thread waiter;

  /** Whether the receiver's handler blocks (the flow-control test); read on every delivery. */
  private volatile boolean paused;

  // Guarded by lock.
  private boolean readySignalled;

  /** {@code name} says which call this is in failure messages. */
  OneWayProgress(String name) {
    this.name = name;
  }

  /** The sender sent one more message. */
  void sent() {
    sent = sent + 1; // one writer at a time
  }

  /** Messages sent so far. */
  long sentCount() {
    return sent;
  }

  /** Messages the receiver's handler has counted so far. */
  long receivedCount() {
    return received.get();
  }

  /** The receiver's handler got one more message; blocks while the receiver is paused. */
  void received() {
    if (paused) {
      waitWhilePaused();
    }
    if (received.incrementAndGet() >= awaited) {
      LockSupport.unpark(waiter);
    }
  }

  /** The sending call may have become ready (its on-ready handler). */
  void signalReady() {
    synchronized (lock) {
      readySignalled = true;
      lock.notifyAll();
    }
  }

  /** The call ended normally; {@code count} is what its far end reported, if anything. */
  void ended(long count) {
    end.complete(count);
    wakeAll();
  }

  /** The call failed. */
  void failed(Throwable cause) {
    end.completeExceptionally(cause);
    wakeAll();
  }

  /** From now on the receiver's handler blocks in {@link #received()} until {@link #resume()}. */
  void pause() {
    paused = true;
  }

  /** Lets a paused receiver go on. */
  void resume() {
    synchronized (lock) {
      paused = false;
      lock.notifyAll();
    }
  }

  /**
   * Returns once {@code isReady} says the sending call can take a message, waiting for on-ready
   * signals in between (never spinning: client and server share the machine's cores).
   */
  void awaitReady(BooleanSupplier isReady) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT_NANOS;
    while (!isReady.getAsBoolean()) {
      checkNotEnded("waiting for the call to become ready");
      synchronized (lock) {
        if (!readySignalled) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw stuck("the sending call did not become ready");
          }
          TimeUnit.NANOSECONDS.timedWait(lock, left);
        }
        readySignalled = false;
      }
    }
  }

  /** Returns once the receiver has counted {@code total} messages. */
  void awaitReceived(long total) throws InterruptedException {
    if (received.get() >= total) {
      return;
    }
    long deadline = System.nanoTime() + TIMEOUT_NANOS;
    waiter = Thread.currentThread();
    awaited = total;
    try {
      while (received.get() < total) {
        checkNotEnded("waiting for " + total + " messages to arrive");
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw stuck("the receiver did not count " + total + " messages");
        }
        LockSupport.parkNanos(this, left);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
    } finally {
      awaited = Long.MAX_VALUE;
      waiter = null;
    }
  }

  /** Waits for the call to end normally and returns the count its far end reported. */
  long awaitEnd() throws InterruptedException {
    try {
      return end.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(name + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw stuck("the call did not end after the half-close");
    }
  }

  private void checkNotEnded(String doing) {
    if (!end.isDone()) {
      return;
    }
    try {
      long count = end.getNow(-1L);
      throw new IllegalStateException(
          name + " ended while " + doing + " (far end counted " + count + "); " + counts());
    } catch (CompletionException e) {
      throw new IllegalStateException(name + " failed: " + e.getCause(), e.getCause());
    }
  }

  private IllegalStateException stuck(String what) {
    return new IllegalStateException(
        name + ": " + what + " within " + TIMEOUT_SECONDS + " s; " + counts());
  }

  private String counts() {
    return "sent " + sent + ", received " + received.get();
  }

  private void waitWhilePaused() {
    synchronized (lock) {
      while (paused) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void wakeAll() {
    LockSupport.unpark(waiter);
    signalReady();
  }
}
