package dev.tern.internal.server;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A bound on calls in progress that learns itself from the latency of the calls it admits, in the
 * gradient style of TCP Vegas: while calls take no more than {@link #TOLERANCE} times the unloaded
 * latency, the limit grows by its square root per window of samples; when they take longer, it
 * shrinks in proportion (by at most half a window). The unloaded latency is the lowest median of
 * the windows that ran unloaded (their calls in progress at most half the limit, or at the floor
 * {@link #MIN_LIMIT}) over the last one to two periods of {@link #WINDOWS_PER_PERIOD} windows that
 * had such a window, so it follows a service that becomes slower or faster for good, but never
 * creeps up with the load itself; before the first unloaded window the limit halves per window (a
 * server that starts overloaded). The limit follows latency, not CPU: a handler that waits (sleeps,
 * blocks on I/O on a virtual thread) keeps its latency as concurrency grows, so its limit grows up
 * to {@link #MAX_LIMIT}.
 *
 * <p>Thread-safe and lock-free. {@link #tryAcquire} and {@link #release} are one atomic increment
 * or decrement each; {@link #record} claims a slot of the current window with one atomic increment,
 * and the thread that writes a window's last sample updates the limit (once every {@link #WINDOW}
 * samples), then starts a new window. A window closes once, so updates never run at the same time;
 * each updater sees the previous one's state through the window's hand-over.
 */
final class AdaptiveConcurrencyLimit {
  /** Samples per window: the limit changes at most once per this many calls. */
  static final int WINDOW = 32;

  /** Windows per period of the unloaded latency's sliding minimum. */
  static final int WINDOWS_PER_PERIOD = 16;

  /** The latency, as a multiple of the unloaded latency, up to which the limit may grow. */
  static final double TOLERANCE = 2.0;

  static final int MIN_LIMIT = 8;
  static final int MAX_LIMIT = 10_000;

  /** No evidence of overload yet: a cold server refuses nothing it would have served before. */
  static final int INITIAL_LIMIT = MAX_LIMIT;

  private final AtomicInteger inProgress = new AtomicInteger();
  private volatile int limit = INITIAL_LIMIT;

  /**
   * Whether the calls in progress hold at least half the limit: the server is near what it serves
   * in time. Only then is a call with less time left than {@link #recentLatencyNanos} not started;
   * an idle server starts it, so the recent latency keeps learning (a server refusing every call
   * would never learn that calls became faster).
   */
  boolean busy() {
    return inProgress.get() * 2 >= limit;
  }

  /** The median latency of the last full window, in nanoseconds; 0 before the first. */
  private volatile long recentLatencyNanos;

  private final AtomicReference<Window> window = new AtomicReference<>(new Window());

  // Touched only by the thread closing a window (see the class comment).
  private double estimate = INITIAL_LIMIT;
  private long periodMin = Long.MAX_VALUE;
  private long previousPeriodMin = Long.MAX_VALUE;
  private int windowsInPeriod;

  /** Takes a slot; false, taking nothing, if the learned limit is reached. */
  boolean tryAcquire() {
    if (inProgress.incrementAndGet() <= limit) {
      return true;
    }
    inProgress.decrementAndGet();
    return false;
  }

  /** Gives back a slot {@link #tryAcquire} took, without a sample (a failed or cancelled call). */
  void release() {
    inProgress.decrementAndGet();
  }

  /**
   * Gives back a slot {@link #tryAcquire} took, and learns from the call's latency.
   *
   * @param latencyNanos from the call's arrival to its stream's close
   */
  void release(long latencyNanos) {
    int before = inProgress.getAndDecrement();
    record(Math.max(0, latencyNanos), before);
  }

  private void record(long latencyNanos, int inProgressAtEnd) {
    Window w = window.get();
    int i = w.claimed.getAndIncrement();
    if (i >= WINDOW) {
      return; // the window is being closed; this sample is dropped
    }
    w.latencies[i] = latencyNanos;
    w.inProgress[i] = inProgressAtEnd;
    if (w.written.incrementAndGet() == WINDOW) {
      update(w);
      window.set(new Window());
    }
  }

  /** One window's samples: learned from in {@link #update}. */
  private void update(Window w) {
    long[] sorted = w.latencies.clone();
    Arrays.sort(sorted);
    long median = sorted[WINDOW / 2];
    int busiest = Arrays.stream(w.inProgress).max().orElse(0);
    recentLatencyNanos = median;

    // A window measures the unloaded latency when its calls in progress stayed well below the
    // limit, or at the floor (as unloaded as the limit ever makes it).
    if (busiest * 2 <= estimate || busiest <= MIN_LIMIT) {
      periodMin = Math.min(periodMin, median);
    }
    if (++windowsInPeriod == WINDOWS_PER_PERIOD) {
      if (periodMin != Long.MAX_VALUE) {
        previousPeriodMin = periodMin; // else a loaded period: the last baseline stands
      }
      periodMin = Long.MAX_VALUE;
      windowsInPeriod = 0;
    }
    long unloaded = Math.min(periodMin, previousPeriodMin);

    if (unloaded == Long.MAX_VALUE) {
      // Loaded from the start: halve until a window runs unloaded and gives the baseline.
      estimate /= 2;
    } else if (TOLERANCE * unloaded >= median) {
      // Within tolerance: grow, unless the calls in progress never came near the limit (then the
      // window says nothing about a higher one).
      if (busiest * 2 >= estimate) {
        estimate += Math.sqrt(estimate);
      }
    } else {
      estimate *= Math.max(0.5, TOLERANCE * unloaded / median);
    }
    estimate = Math.max(MIN_LIMIT, Math.min(MAX_LIMIT, estimate));
    limit = (int) estimate;
  }

  /** The limit now. */
  int limit() {
    return limit;
  }

  /** The calls holding a slot now. */
  int inProgress() {
    return inProgress.get();
  }

  /** The median latency of the last full window of calls, in nanoseconds; 0 before the first. */
  long recentLatencyNanos() {
    return recentLatencyNanos;
  }

  /** Samples being gathered: slots claimed, then written; closed by its last writer. */
  private static final class Window {
    final long[] latencies = new long[WINDOW];
    final int[] inProgress = new int[WINDOW];
    final AtomicInteger claimed = new AtomicInteger();
    final AtomicInteger written = new AtomicInteger();
  }
}
