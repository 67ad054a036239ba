package dev.tern.internal.server;

import dev.tern.Status;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server's bound on its calls in progress ({@code ServerBuilder.maxConcurrentCalls}): a call
 * takes a slot when it is dispatched and gives it back when its stream closes; a call that finds
 * every slot taken is refused with {@link #exhausted()} before its handler runs. One atomic
 * increment per call, and one decrement at its end.
 *
 * <p>Thread-safe: one atomic counter. A refused attempt raises the count for an instant before
 * taking it back, so a concurrent attempt may be refused though a slot frees at the same moment;
 * the bound itself is never exceeded by calls that were admitted.
 */
final class ConcurrentCallLimit {
  private final int max;
  private final AtomicInteger inProgress = new AtomicInteger();
  private final Status exhausted;

  /**
   * A limit of {@code max} calls.
   *
   * @throws IllegalArgumentException if {@code max} is not positive
   */
  ConcurrentCallLimit(int max) {
    if (max <= 0) {
      throw new IllegalArgumentException("maxConcurrentCalls must be > 0, was " + max);
    }
    this.max = max;
    this.exhausted =
        Status.RESOURCE_EXHAUSTED.withDescription(
            "Server overloaded: "
                + max
                + " calls in progress, its limit (maxConcurrentCalls); try again later");
  }

  /** Takes a slot; false, taking nothing, if all are taken. */
  boolean tryAcquire() {
    if (inProgress.incrementAndGet() <= max) {
      return true;
    }
    inProgress.decrementAndGet();
    return false;
  }

  /** Gives back a slot {@link #tryAcquire} took. */
  void release() {
    inProgress.decrementAndGet();
  }

  /** The calls in progress now. */
  int inProgress() {
    return inProgress.get();
  }

  /** The status of a call refused because every slot was taken. */
  Status exhausted() {
    return exhausted;
  }
}
