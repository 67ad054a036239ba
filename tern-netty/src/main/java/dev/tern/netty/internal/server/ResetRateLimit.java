package dev.tern.netty.internal.server;

/**
 * Counts RST_STREAM frames of one kind on one connection in fixed windows: a window opens with the
 * first reset counted after the previous one expired, and {@link #overLimit} says when more than
 * the allowed number fell in the current one.
 *
 * <p>Not thread-safe: owned by one connection handler and used on its event loop only.
 */
final class ResetRateLimit {
  private final int max;
  private final long windowNanos;
  private long windowStartNanos;
  private int count;

  /**
   * @param max resets allowed per window; 0 or less disables the limit
   * @param windowNanos the window's length
   */
  ResetRateLimit(int max, long windowNanos) {
    this.max = max;
    this.windowNanos = windowNanos;
  }

  /** Counts one reset at {@code nowNanos}; true if that makes more than the allowed number. */
  boolean overLimit(long nowNanos) {
    if (max <= 0) {
      return false;
    }
    if (count == 0 || nowNanos - windowStartNanos > windowNanos) {
      windowStartNanos = nowNanos;
      count = 0;
    }
    return ++count > max;
  }
}
