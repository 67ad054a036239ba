package dev.tern.internal.server;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
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

  /** The {@code grpc-retry-pushback-ms} value refused calls carry; null for none. */
  private final String retryPushback;

  /**
   * A limit of {@code max} calls.
   *
   * @param retryPushbackMillis the {@code grpc-retry-pushback-ms} of a refused call (negative: do
   *     not retry); null for none
   * @throws IllegalArgumentException if {@code max} is not positive
   */
  ConcurrentCallLimit(int max, Long retryPushbackMillis) {
    if (max <= 0) {
      throw new IllegalArgumentException("maxConcurrentCalls must be > 0, was " + max);
    }
    this.max = max;
    this.exhausted =
        Status.RESOURCE_EXHAUSTED.withDescription(
            "Server overloaded: "
                + max
                + " calls in progress, its limit (maxConcurrentCalls); try again later");
    // gRFC A6: any negative value means "do not retry"; -1 says so plainly.
    this.retryPushback =
        retryPushbackMillis == null
            ? null
            : Long.toString(retryPushbackMillis < 0 ? -1 : retryPushbackMillis);
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

  /** The trailers of a call refused because every slot was taken: new for each, as sent. */
  Metadata exhaustedTrailers() {
    Metadata trailers = new Metadata();
    if (retryPushback != null) {
      trailers.put(GrpcHeaders.RETRY_PUSHBACK_MS, retryPushback);
    }
    return trailers;
  }
}
