package dev.tern.http3.internal.server;

/**
 * A count of stream resets in a fixed window of time, against a limit: the window starts at the
 * first reset counted after the previous one ended. One for the resets a client sends (Rapid Reset,
 * CVE-2023-44487) and one for those a client makes the server send (MadeYouReset, CVE-2025-8671).
 * Not thread-safe: the connection's event loop only.
 */
final class ResetWindow {
  private final int max;
  private final long windowNanos;
  private long windowStart;
  private int resets;

  /**
   * @param max the resets allowed in a window; 0 for no limit
   * @param windowNanos the window's length
   */
  ResetWindow(int max, long windowNanos) {
    this.max = max;
    this.windowNanos = windowNanos;
  }

  /** Counts a reset at {@code nowNanos}; true if it is one more than the window allows. */
  boolean countAndExceeded(long nowNanos) {
    if (max == 0) {
      return false;
    }
    if (resets == 0 || nowNanos - windowStart >= windowNanos) {
      windowStart = nowNanos;
      resets = 0;
    }
    return ++resets > max;
  }

  /** The limit's words for a connection error: "more than N <what> in M ms". */
  String exceeded(String what) {
    return "more than " + max + " " + what + " in " + windowNanos / 1_000_000 + " ms";
  }
}
