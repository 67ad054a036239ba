package dev.tern.testing;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Bounded waits for tests: each gives up after {@link #TIMEOUT} with an {@link AssertionError}
 * saying what never happened, so a broken transport fails a test instead of hanging the build.
 * Stateless; thread-safe.
 */
public final class Await {
  /**
   * How long to wait for an event that should happen promptly. Generous, because a failure costs
   * this much time but a success returns as soon as the event happens. Override with the system
   * property {@code tern.testing.timeoutSeconds}.
   */
  public static final Duration TIMEOUT =
      Duration.ofSeconds(Long.getLong("tern.testing.timeoutSeconds", 10));

  private Await() {}

  /** Takes the next element of {@code queue}, waiting for it. */
  public static <T> T poll(BlockingQueue<T> queue, String what) {
    try {
      T value = queue.poll(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
      if (value == null) {
        throw new AssertionError("timed out after " + TIMEOUT + " waiting for " + what);
      }
      return value;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for " + what, e);
    }
  }

  /** Waits for {@code latch} to reach zero. */
  public static void await(CountDownLatch latch, String what) {
    try {
      if (!latch.await(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new AssertionError("timed out after " + TIMEOUT + " waiting for " + what);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for " + what, e);
    }
  }

  /** Waits for {@code future} and returns its value. */
  public static <T> T get(CompletableFuture<T> future, String what) {
    try {
      return future.get(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("timed out after " + TIMEOUT + " waiting for " + what, e);
    } catch (ExecutionException e) {
      throw new AssertionError(what + " failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for " + what, e);
    }
  }

  /** Takes one permit of {@code semaphore}, waiting at most until {@code deadlineNanos}. */
  static boolean acquireUntil(Semaphore semaphore, long deadlineNanos) {
    try {
      return semaphore.tryAcquire(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** {@link System#nanoTime()} at which a wait starting now gives up. */
  static long deadline() {
    return System.nanoTime() + TIMEOUT.toNanos();
  }
}
