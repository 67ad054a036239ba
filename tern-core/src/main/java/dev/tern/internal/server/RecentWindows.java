package dev.tern.internal.server;

/**
 * The adaptive limit's last windows ({@link AdaptiveConcurrencyLimit}), each by its mean calls in
 * progress: whether a queue is still growing ({@link #growing}).
 *
 * <p>Not thread-safe: only the thread closing a window of the limiter touches it.
 */
final class RecentWindows {
  /** The longest span compared: {@link AdaptiveConcurrencyLimit#RISING_SPAN}. */
  private final int risingSpan;

  /** The mean calls in progress of the last {@code 2 * risingSpan + 1} windows, a ring. */
  private final double[] means;

  /** The windows added; the next is written at this modulo the ring's length. */
  private long seen;

  RecentWindows(int risingSpan) {
    this.risingSpan = risingSpan;
    this.means = new double[2 * risingSpan + 1];
  }

  /**
   * Adds a window, and tells whether the mean calls in progress grew over each of the last two
   * spans of {@code risingSpan} windows by more than {@code by}, or over each of the last two spans
   * of half, a quarter, ... of it, down to one window, by two, four, ... times {@code by} (a growth
   * a window 4, 16, ... times as fast as the longest span asks): a queue still growing. A queue
   * growing fast is told sooner (on one core at three times what it serves, two spans of 8 windows
   * let it grow to about 280 ms), while a mix of cheap and expensive calls, uneven from one window
   * to the next, must grow over the longer spans.
   *
   * @param meanInProgress the window's mean calls in progress as its calls ended
   * @param by the growth per longest span that counts
   */
  boolean growing(double meanInProgress, double by) {
    int length = means.length;
    int now = (int) (seen % length);
    means[now] = meanInProgress;
    seen++;
    // A limiter's first windows have only the shorter spans to compare, so a server overloaded
    // from its start is not left to queue for 2 * risingSpan windows first.
    int longest = (int) Math.min(risingSpan, (seen - 1) / 2);
    for (int span = 1; span <= longest; span *= 2) {
      double spanAgo = means[(now + length - span) % length];
      double twoSpansAgo = means[(now + length - 2 * span) % length];
      double needed = by * risingSpan / span;
      if (meanInProgress > spanAgo + needed && spanAgo > twoSpansAgo + needed) {
        return true;
      }
    }
    return false;
  }
}
