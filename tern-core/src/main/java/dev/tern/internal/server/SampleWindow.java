package dev.tern.internal.server;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One window of {@link #SIZE} calls' samples, and what {@link AdaptiveConcurrencyLimit} reads from
 * it: the median latency, the calls in progress, the late calls and the calls a queue put at risk.
 * A window is written once and then read once: {@link #add} claims a slot with one atomic
 * increment, and the caller whose sample fills the window is told so and reads the figures.
 *
 * <p>Thread-safe for {@link #add} from any threads. The figures are for the thread that filled the
 * window (the count of written samples hands their writes over to it), read after that.
 */
final class SampleWindow {
  /** Samples per window: the limit changes at most once per this many calls. */
  static final int SIZE = 32;

  private final long[] latencies = new long[SIZE];
  private final int[] inProgress = new int[SIZE];
  private final int[] atStart = new int[SIZE];
  private final boolean[] late = new boolean[SIZE];

  /** Each call's time left as it arrived: negative for none. */
  private final long[] timeouts = new long[SIZE];

  private final AtomicInteger claimed = new AtomicInteger();
  private final AtomicInteger written = new AtomicInteger();

  /**
   * Adds one call's sample.
   *
   * @param latencyNanos the call's latency
   * @param inProgressAtEnd the calls in progress as it ended, itself included
   * @param inProgressAtStart the calls in progress as its latency began
   * @param isLate whether its deadline passed, or its client gave up, while the server had it
   * @param timeoutNanos its time left as it arrived; negative if it had no deadline
   * @return true for the caller whose sample filled the window, which then reads it; false
   *     otherwise, and when the window was already full (the sample is dropped)
   */
  boolean add(
      long latencyNanos,
      int inProgressAtEnd,
      int inProgressAtStart,
      boolean isLate,
      long timeoutNanos) {
    int i = claimed.getAndIncrement();
    if (i >= SIZE) {
      return false;
    }
    latencies[i] = latencyNanos;
    inProgress[i] = inProgressAtEnd;
    atStart[i] = inProgressAtStart;
    late[i] = isLate;
    timeouts[i] = timeoutNanos;
    return written.incrementAndGet() == SIZE;
  }

  /** The median latency, in nanoseconds. */
  long median() {
    long[] sorted = latencies.clone();
    Arrays.sort(sorted);
    return sorted[SIZE / 2];
  }

  /** The most calls in progress as a call of the window ended. */
  int busiest() {
    int busiest = 0;
    for (int n : inProgress) {
      busiest = Math.max(busiest, n);
    }
    return busiest;
  }

  /** The calls of the window that were late, or abandoned by their clients. */
  int lateCount() {
    int count = 0;
    for (boolean isLate : late) {
      count += isLate ? 1 : 0;
    }
    return count;
  }

  /**
   * The window's calls whose deadlines a queue puts at risk: their latency, or the wait of a call
   * arriving as they ended, took at least {@code share} of their time. A call that waited {@code
   * latency} behind the calls in progress as it began waits, as it ends, behind the calls in
   * progress then at the same pace (latency times the calls in progress at its end over those at
   * its start): a growing queue is long before its calls' latencies show it, as they end (on one
   * core at five times what it serves, a call's latency as it ends is a fifth of what the call
   * arriving then will wait). Calls held open together, far more than those queueing, keep the two
   * counts close, so the wait reads as the latency. A call without a deadline is never at risk; a
   * late one always.
   */
  int atRisk(double share) {
    int count = 0;
    for (int i = 0; i < SIZE; i++) {
      long timeout = timeouts[i];
      double growth = Math.max(1, inProgress[i] / (double) Math.max(1, atStart[i]));
      double wait = latencies[i] * growth;
      count += late[i] || (timeout >= 0 && wait >= share * timeout) ? 1 : 0;
    }
    return count;
  }

  /** The mean latency, in nanoseconds. */
  double meanLatency() {
    double sum = 0;
    for (long latency : latencies) {
      sum += latency;
    }
    return sum / SIZE;
  }

  /** The mean calls in progress as the window's calls ended. */
  double meanInProgress() {
    long sum = 0;
    for (int n : inProgress) {
      sum += n;
    }
    return sum / (double) SIZE;
  }

  /**
   * The most calls in progress as a call of the window began, of those that ended within {@code
   * allowed} nanoseconds, not late.
   */
  int busiestInTime(double allowed) {
    int busiest = 0;
    for (int i = 0; i < SIZE; i++) {
      if (!late[i] && latencies[i] <= allowed) {
        busiest = Math.max(busiest, atStart[i]);
      }
    }
    return busiest;
  }
}
