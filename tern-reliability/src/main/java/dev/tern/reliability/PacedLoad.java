package dev.tern.reliability;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The soak's load: {@link Workload}'s mixed calls ({@link CallKind}'s kinds in turn, one call at a
 * time per worker, a hang past {@link Workload#HANG_GRACE}), paced to a total rate, and counted
 * rather than kept, so that a long run's client holds no more memory at its end than at its start.
 * Each worker starts a call every {@code workers / rate} seconds; a worker whose call ended late
 * starts the next one at once, without catching up on the calls it missed (so the rate is an upper
 * bound; {@link #calls} tells the rate reached). A rate of 0 runs unpaced: each worker starts its
 * next call as soon as the last one ended, which measures capacity.
 *
 * <p>Thread-safe: the counters are atomic, the failures guarded by this object's monitor.
 */
final class PacedLoad {
  /** Failures kept for the report; the rest are only counted. */
  static final int KEPT_FAILURES = 10;

  private final Peer.Client client;
  private final long intervalNanos;
  private final int workers;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong calls = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private volatile boolean stopping;

  @GuardedBy("this")
  private final List<Outcome> firstFailures = new ArrayList<>();

  private PacedLoad(Peer.Client client, long intervalNanos, int workers) {
    this.client = client;
    this.intervalNanos = intervalNanos;
    this.workers = workers;
  }

  /**
   * Starts {@code workers} workers on {@code client}, {@code rate} calls a second in all (0:
   * unpaced).
   */
  static PacedLoad start(Peer.Client client, int workers, int rate) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be >= 1, was " + workers);
    }
    if (rate < 0) {
      throw new IllegalArgumentException("rate must be >= 0 (0: unpaced), was " + rate);
    }
    long interval = rate == 0 ? 0 : TimeUnit.SECONDS.toNanos(workers) / rate;
    PacedLoad load = new PacedLoad(client, interval, workers);
    for (int i = 0; i < workers; i++) {
      int first = i;
      Thread thread = new Thread(() -> load.run(first), "soak-worker-" + i);
      thread.setDaemon(true);
      load.threads.add(thread);
      thread.start();
    }
    return load;
  }

  private void run(int first) {
    CallKind[] kinds = CallKind.values();
    long next = System.nanoTime() + intervalNanos * first / workers;
    for (int n = first; !stopping; n++) {
      for (long wait = next - System.nanoTime();
          wait > 0 && !stopping;
          wait = next - System.nanoTime()) {
        LockSupport.parkNanos(wait);
      }
      if (stopping) {
        return;
      }
      next = Math.max(next, System.nanoTime() - intervalNanos) + intervalNanos;
      Outcome outcome;
      try {
        outcome = Workload.call(client, kinds[n % kinds.length]);
      } catch (InterruptedException e) {
        return;
      }
      calls.incrementAndGet();
      if (!outcome.succeeded()) {
        failures.incrementAndGet();
        synchronized (this) {
          if (firstFailures.size() < KEPT_FAILURES) {
            firstFailures.add(outcome);
          }
        }
      }
    }
  }

  /** Calls ended so far. */
  long calls() {
    return calls.get();
  }

  /** Calls so far that did not end as they do without faults ({@link Outcome#succeeded}). */
  long failures() {
    return failures.get();
  }

  /** The first {@link #KEPT_FAILURES} failures. */
  synchronized List<Outcome> firstFailures() {
    return List.copyOf(firstFailures);
  }

  /** Stops the workers and waits for their last calls to end. */
  void stop() throws InterruptedException {
    stopping = true;
    for (Thread thread : threads) {
      LockSupport.unpark(thread);
    }
    for (Thread thread : threads) {
      thread.join(CallKind.UNARY.deadline().plus(Workload.HANG_GRACE).multipliedBy(2).toMillis());
    }
  }
}
