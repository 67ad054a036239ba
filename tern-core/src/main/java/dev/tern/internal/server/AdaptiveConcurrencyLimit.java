package dev.tern.internal.server;

import dev.tern.Deadline;
import dev.tern.Metadata;
import dev.tern.Status;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A server's adaptive bound on its unary calls in progress ({@code
 * ServerBuilder.adaptiveConcurrencyLimit}, on by default): the limit is learnt from the calls'
 * latency, not set by hand, in the gradient style of TCP Vegas. While calls take about as long as
 * they do unloaded, the limit grows by a queue allowance of {@code sqrt(limit)} per batch of
 * samples; once they take longer than {@link #TOLERANCE} times the unloaded latency (work is
 * queueing somewhere: CPU, a lock, a pool), it shrinks by the ratio of the two. A handler that
 * blocks or sleeps (I/O, virtual threads) keeps its latency flat however many run at once, so its
 * limit keeps growing: the limit follows latency, not CPU.
 *
 * <p>States: the limit, a batch of samples being gathered, and the unloaded latency ({@code
 * minRtt}: the lowest batch average over the current and the previous {@link #WINDOW_BATCHES}
 * batches, so that a service that became slower for good is re-learnt within two windows).
 *
 * <p>Thread-safe and lock-free: {@link #tryAcquire} is one compare-and-set on the count of calls in
 * progress, {@link #release} one decrement and two atomic adds; the thread whose sample completes a
 * batch of {@link #BATCH} recomputes the limit, and a concurrent one that also completes it skips
 * (one atomic flag), so the update runs at most once per batch and never under a lock.
 */
final class AdaptiveConcurrencyLimit {
  /** Samples per limit update: enough to average out one slow call, few enough to react fast. */
  static final int BATCH = 32;

  /** Batches per window of the unloaded latency's minimum (the re-probe period). */
  static final int WINDOW_BATCHES = 100;

  /** Latency up to this multiple of the unloaded latency is noise, not queueing. */
  static final double TOLERANCE = 1.5;

  /** How much of each new estimate the limit takes (the rest is the old limit): smoothing. */
  private static final double SMOOTHING = 0.2;

  /** The limit never falls below this: a server always serves some calls to measure latency. */
  static final int MIN_LIMIT = 8;

  /** The limit never grows beyond this: a server that stays fast still has a ceiling. */
  static final int MAX_LIMIT = 10_000;

  /** Where the limit starts: high, so that a new server serves bursts while it learns. */
  static final int INITIAL_LIMIT = 1_000;

  private static final Status EXHAUSTED =
      Status.RESOURCE_EXHAUSTED.withDescription(
          "Server overloaded: its calls in progress reached its adaptive concurrency limit"
              + " (adaptiveConcurrencyLimit); try again later");

  private final Deadline.Ticker ticker;
  private final OverloadPushback pushback;
  private final AtomicInteger inProgress = new AtomicInteger();
  private volatile int limit = INITIAL_LIMIT;

  private final AtomicLong batchNanos = new AtomicLong();
  private final AtomicInteger batchCount = new AtomicInteger();
  private final AtomicBoolean updating = new AtomicBoolean();

  // Written only by the thread holding {@code updating}; the flag's CAS orders them between
  // updates.
  private long windowMin = Long.MAX_VALUE;
  private long previousWindowMin = Long.MAX_VALUE;
  private int batchesInWindow;
  private double exactLimit = INITIAL_LIMIT;

  /**
   * A limit measured by {@code ticker}.
   *
   * @param pushback the {@code grpc-retry-pushback-ms} of refused calls
   */
  AdaptiveConcurrencyLimit(Deadline.Ticker ticker, OverloadPushback pushback) {
    this.ticker = java.util.Objects.requireNonNull(ticker, "ticker");
    this.pushback = java.util.Objects.requireNonNull(pushback, "pushback");
  }

  /** Now, by this limit's clock: a call's start, given back to {@link #release}. */
  long now() {
    return ticker.nanoTime();
  }

  /** Takes a slot; false, taking nothing, if the calls in progress are at the limit. */
  boolean tryAcquire() {
    while (true) {
      int current = inProgress.get();
      if (current >= limit) {
        return false;
      }
      if (inProgress.compareAndSet(current, current + 1)) {
        return true;
      }
    }
  }

  /**
   * Gives back a slot of a call {@link #tryAcquire} admitted at {@code startNanos} ({@link #now}).
   */
  void release(long startNanos) {
    inProgress.decrementAndGet();
    long latency = Math.max(1, ticker.nanoTime() - startNanos);
    batchNanos.addAndGet(latency);
    if (batchCount.incrementAndGet() >= BATCH && updating.compareAndSet(false, true)) {
      try {
        update();
      } finally {
        updating.set(false);
      }
    }
  }

  /** Averages the batch gathered so far and moves the limit (the thread holding the flag). */
  private void update() {
    int count = batchCount.getAndSet(0);
    long total = batchNanos.getAndSet(0);
    if (count == 0) {
      return;
    }
    long average = Math.max(1, total / count);
    windowMin = Math.min(windowMin, average);
    if (++batchesInWindow >= WINDOW_BATCHES) {
      previousWindowMin = windowMin;
      windowMin = Long.MAX_VALUE;
      batchesInWindow = 0;
    }
    long minRtt = Math.min(windowMin, previousWindowMin);
    double gradient = Math.max(0.5, Math.min(1.0, TOLERANCE * minRtt / average));
    double estimate = exactLimit * gradient + Math.sqrt(exactLimit);
    double next = exactLimit * (1 - SMOOTHING) + estimate * SMOOTHING;
    exactLimit = Math.max(MIN_LIMIT, Math.min(MAX_LIMIT, next));
    limit = (int) exactLimit;
  }

  /** The current limit. */
  int limit() {
    return limit;
  }

  /** The calls in progress now. */
  int inProgress() {
    return inProgress.get();
  }

  /** The status of a call refused at the limit. */
  Status exhausted() {
    return EXHAUSTED;
  }

  /** The trailers of a call refused at the limit: new for each, as sent. */
  Metadata exhaustedTrailers() {
    return pushback.trailers();
  }
}
