package dev.tern.reliability;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The mixed workload: {@code workers} threads, each starting one call at a time through {@link
 * CallKind}'s kinds in turn and waiting for it to end, up to its deadline plus {@link #HANG_GRACE}
 * (a call still open then is a {@link Outcome#HANG} and is abandoned). A worker whose call did not
 * succeed waits {@link #PAUSE_AFTER_FAILURE} before the next one, so that a channel failing calls
 * at once does not spin. Bounded in time by its caller ({@link #stop}), in calls by the deadlines.
 *
 * <p>Thread-safe: the outcomes are guarded by this object's monitor, which waiters wait on.
 */
public final class Workload {
  /** How long past its deadline a call may take to end before it counts as a hang. */
  public static final Duration HANG_GRACE = Duration.ofSeconds(2);

  static final Duration PAUSE_AFTER_FAILURE = Duration.ofMillis(20);

  private final Peer.Client client;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;

  @GuardedBy("this")
  private final List<Outcome> outcomes = new ArrayList<>();

  private Workload(Peer.Client client) {
    this.client = client;
  }

  /** Starts {@code workers} workers on {@code client}. */
  public static Workload start(Peer.Client client, int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be >= 1, was " + workers);
    }
    Workload workload = new Workload(client);
    for (int i = 0; i < workers; i++) {
      int first = i;
      Thread thread = new Thread(() -> workload.run(first), "chaos-worker-" + i);
      thread.setDaemon(true);
      workload.threads.add(thread);
      thread.start();
    }
    return workload;
  }

  private void run(int first) {
    CallKind[] kinds = CallKind.values();
    for (int n = first; !stopping; n++) {
      Outcome outcome;
      try {
        outcome = call(client, kinds[n % kinds.length]);
      } catch (InterruptedException e) {
        return;
      }
      synchronized (this) {
        outcomes.add(outcome);
        notifyAll();
      }
      if (!outcome.succeeded()) {
        try {
          Thread.sleep(PAUSE_AFTER_FAILURE.toMillis());
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /**
   * Makes one call of {@code kind} on {@code client} and waits for it to end, up to its deadline
   * plus {@link #HANG_GRACE} (then it is a {@link Outcome#HANG}, abandoned).
   */
  static Outcome call(Peer.Client client, CallKind kind) throws InterruptedException {
    long start = System.nanoTime();
    CompletableFuture<Peer.CallEnd> call = client.call(kind);
    Peer.CallEnd end;
    try {
      end = call.get(kind.deadline().plus(HANG_GRACE).toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      end = new Peer.CallEnd(Outcome.HANG, "open " + HANG_GRACE + " past its deadline");
    } catch (ExecutionException e) {
      end = new Peer.CallEnd("UNKNOWN", "the harness's call failed: " + e.getCause());
    }
    return new Outcome(kind, end.code(), end.description(), start, System.nanoTime());
  }

  /**
   * Waits until {@code count} calls that started at or after {@code sinceNanos} have succeeded in a
   * row (no failure among the calls started since then, in end order, after the first success of
   * the run); returns the end time of the first of them, or -1 if that took longer than {@code
   * timeout}.
   */
  public synchronized long awaitSuccesses(long sinceNanos, int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long firstOfRun = -1;
      int run = 0;
      for (Outcome outcome : outcomes) {
        if (outcome.startNanos() - sinceNanos < 0) {
          continue;
        }
        if (outcome.succeeded()) {
          if (run++ == 0) {
            firstOfRun = outcome.endNanos();
          }
          if (run >= count) {
            return firstOfRun;
          }
        } else {
          run = 0;
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return -1;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /** Stops the workers, waits for their last calls to end, and returns every outcome. */
  public List<Outcome> stop() throws InterruptedException {
    stopping = true;
    for (Thread thread : threads) {
      thread.join(CallKind.UNARY.deadline().plus(HANG_GRACE).multipliedBy(2).toMillis());
    }
    synchronized (this) {
      return List.copyOf(outcomes);
    }
  }
}
