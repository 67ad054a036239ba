package dev.tern.internal.retry;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes a channel may hold for replaying requests to retries and hedges ({@code
 * retryBufferSize}), shared by all its calls; each call also has its own limit ({@code
 * perRpcBufferLimit}). A call that cannot reserve room commits to one attempt and stops buffering.
 *
 * <p>Thread-safe and lock-free.
 */
public final class RetryBuffer {
  private final long limit;
  private final long perCallLimit;
  private final AtomicLong used = new AtomicLong();

  public RetryBuffer(long limit, long perCallLimit) {
    this.limit = limit;
    this.perCallLimit = perCallLimit;
  }

  /**
   * Reserves {@code bytes} more for a call that already holds {@code callHeld}.
   *
   * @return false (and nothing reserved) if the call's or the channel's limit would be passed
   */
  boolean tryReserve(long callHeld, long bytes) {
    if (callHeld + bytes > perCallLimit) {
      return false;
    }
    while (true) {
      long current = used.get();
      if (current + bytes > limit) {
        return false;
      }
      if (used.compareAndSet(current, current + bytes)) {
        return true;
      }
    }
  }

  /** Gives back {@code bytes} reserved earlier. */
  void release(long bytes) {
    if (bytes > 0) {
      used.addAndGet(-bytes);
    }
  }

  /** Bytes held by all calls now (for tests). */
  long used() {
    return used.get();
  }
}
