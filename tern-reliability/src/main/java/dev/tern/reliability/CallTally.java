package dev.tern.reliability;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The calls of one overload step as they end: each status code's count and its first description
 * (and how many failed calls had none), the latencies of the OK calls (from each call's scheduled
 * start), the longest any call took from the moment it was issued, the most the client issued a
 * call after its scheduled start (its own lag, which the latencies include), and the calls ended
 * and OK of each kind of call (a mixed load's cheap and expensive calls). Latencies are kept (8
 * bytes a call: a step of 10,000 calls/s for 30 s keeps 2.4 MB); everything else is counted.
 *
 * <p>Thread-safe: the calls end on the client's threads; the state is guarded by this object's
 * monitor, and {@link #awaitEnded} counts ends through a semaphore.
 */
final class CallTally {
  private final Semaphore ended = new Semaphore(0);
  private final Map<String, Long> counts = new TreeMap<>();
  private final Map<String, String> descriptions = new TreeMap<>();
  private final Map<String, KindCount> byKind = new TreeMap<>();
  private long[] okLatencies = new long[1024];
  private int ok;
  private long longestNanos;
  private long behindNanos;
  private long undescribed;

  /**
   * A call ended with {@code end}.
   *
   * @param scheduledNanos when the schedule meant it to start ({@link System#nanoTime})
   * @param issuedNanos when it was started
   * @param endNanos when it ended
   */
  void ended(long scheduledNanos, long issuedNanos, long endNanos, Peer.CallEnd end) {
    ended(scheduledNanos, issuedNanos, endNanos, end, null);
  }

  /**
   * As {@link #ended(long, long, long, Peer.CallEnd)}, counted also under {@code kind} (null: under
   * none) in {@link #byKind}.
   */
  void ended(long scheduledNanos, long issuedNanos, long endNanos, Peer.CallEnd end, String kind) {
    synchronized (this) {
      if (kind != null) {
        byKind.merge(kind, new KindCount(1, end.code().equals("OK") ? 1 : 0), KindCount::plus);
      }
      counts.merge(end.code(), 1L, Long::sum);
      if (end.description() != null && !end.description().isEmpty()) {
        descriptions.putIfAbsent(end.code(), end.description());
      } else if (!end.code().equals("OK")) {
        undescribed++;
      }
      longestNanos = Math.max(longestNanos, endNanos - issuedNanos);
      behindNanos = Math.max(behindNanos, issuedNanos - scheduledNanos);
      if (end.code().equals("OK")) {
        if (ok == okLatencies.length) {
          okLatencies = Arrays.copyOf(okLatencies, ok * 2);
        }
        okLatencies[ok++] = endNanos - scheduledNanos;
      }
    }
    ended.release();
  }

  /**
   * Waits until {@code calls} calls have ended, up to {@code timeout}; returns how many of them had
   * not (0: all ended).
   */
  int awaitEnded(int calls, long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    int waited = 0;
    while (waited < calls) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || !ended.tryAcquire(left, TimeUnit.NANOSECONDS)) {
        break;
      }
      waited++;
    }
    return calls - waited;
  }

  /** Each status code's count, by code. */
  synchronized Map<String, Long> counts() {
    return Collections.unmodifiableMap(new TreeMap<>(counts));
  }

  /** The first description seen of each status code that had one. */
  synchronized Map<String, String> descriptions() {
    return Collections.unmodifiableMap(new TreeMap<>(descriptions));
  }

  /** The calls of one kind: how many ended, and how many of those ended OK. */
  record KindCount(long ended, long ok) {
    KindCount plus(KindCount other) {
      return new KindCount(ended + other.ended, ok + other.ok);
    }
  }

  /** The calls counted under a kind, by kind; empty if none was. */
  synchronized Map<String, KindCount> byKind() {
    return Collections.unmodifiableMap(new TreeMap<>(byKind));
  }

  /** The calls that failed with no description. */
  synchronized long undescribed() {
    return undescribed;
  }

  /** The calls that ended OK. */
  synchronized int ok() {
    return ok;
  }

  /**
   * The most the client issued a call after its scheduled start, in nanoseconds: a client that fell
   * behind its schedule (its core busy) charges that to the latencies from the schedule.
   */
  synchronized long behindNanos() {
    return behindNanos;
  }

  /** The longest a call took from being issued to its end, in nanoseconds. */
  synchronized long longestNanos() {
    return longestNanos;
  }

  /**
   * The {@code percentile} (0 to 100, nearest rank) of the OK calls' latencies in nanoseconds; -1
   * if no call ended OK.
   */
  synchronized long okLatencyPercentile(double percentile) {
    if (percentile < 0 || percentile > 100) {
      throw new IllegalArgumentException("percentile must be in [0, 100], was " + percentile);
    }
    if (ok == 0) {
      return -1;
    }
    long[] sorted = Arrays.copyOf(okLatencies, ok);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(percentile / 100 * ok);
    return sorted[Math.max(0, rank - 1)];
  }
}
