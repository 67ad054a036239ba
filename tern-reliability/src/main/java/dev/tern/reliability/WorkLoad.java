package dev.tern.reliability;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Loads of an {@link OverloadWorkload}'s calls for the overload runs: {@link #open}, calls started
 * on a schedule whatever the server does (what many independent clients do), and {@link #closed}, a
 * fixed number of calls in flight (what measures capacity). Each call is counted under its kind too
 * ({@link CallTally#byKind}).
 *
 * <p>Not thread-safe: the calling thread issues the calls; they end on the client's threads.
 */
final class WorkLoad {
  /** How the open load's calls arrive. */
  enum Arrivals {
    /** Evenly spaced, {@code 1 / rate} apart. */
    CONSTANT,
    /** A Poisson process: exponential gaps of mean {@code 1 / rate} (seeded, so repeatable). */
    POISSON
  }

  private WorkLoad() {}

  /**
   * Starts {@code workload}'s calls at {@code rate} a second for {@code duration} on the schedule
   * {@code arrivals} draws (arrivals and the calls both seeded by {@code seed}), each under {@code
   * deadline}, then waits for them to end, up to {@code deadline + }{@link Workload#HANG_GRACE}.
   * Each call's latency runs from its scheduled start, not from when it was issued: if the client
   * falls behind the schedule, the calls it issues late are charged the delay (no coordinated
   * omission).
   *
   * @return the step's tally and how many calls were issued and still open after the wait
   */
  static Step open(
      Peer.Client client,
      OverloadWorkload workload,
      double rate,
      Duration duration,
      Duration deadline,
      Arrivals arrivals,
      long seed)
      throws InterruptedException {
    if (!(rate > 0)) {
      throw new IllegalArgumentException("rate must be > 0, was " + rate);
    }
    Random random = new Random(seed);
    OverloadWorkload.Calls calls = workload.calls(seed);
    double gapNanos = 1e9 / rate;
    CallTally tally = new CallTally();
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    double offset = 0;
    int issued = 0;
    for (long scheduled = start; scheduled < end; scheduled = start + (long) offset) {
      for (long wait = scheduled - System.nanoTime(); wait > 0; ) {
        LockSupport.parkNanos(wait);
        wait = scheduled - System.nanoTime();
      }
      issue(client, calls.next(), deadline, tally, scheduled);
      issued++;
      offset +=
          arrivals == Arrivals.POISSON ? -Math.log(1 - random.nextDouble()) * gapNanos : gapNanos;
    }
    int open =
        tally.awaitEnded(
            issued, deadline.plus(Workload.HANG_GRACE).toMillis(), TimeUnit.MILLISECONDS);
    return new Step(tally, issued, open);
  }

  /** The calls of one {@link #open} load: {@code open} had not ended after the wait. */
  record Step(CallTally tally, int issued, int open) {}

  /**
   * Keeps {@code inFlight} of {@code workload}'s calls going for {@code duration}, each under
   * {@code deadline}, a new one as soon as one ends; the calls a second that ended OK are the
   * capacity of this client, server and machine.
   */
  static Capacity closed(
      Peer.Client client,
      OverloadWorkload workload,
      int inFlight,
      Duration duration,
      Duration deadline)
      throws InterruptedException {
    OverloadWorkload.Calls calls = workload.calls(0);
    Semaphore slots = new Semaphore(inFlight);
    CallTally tally = new CallTally();
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    while (System.nanoTime() < end) {
      if (!slots.tryAcquire(end - System.nanoTime(), TimeUnit.NANOSECONDS)) {
        break;
      }
      long issued = System.nanoTime();
      ChaosService.WorkCall call = calls.next();
      client
          .work(call, deadline)
          .whenComplete(
              (result, error) -> {
                long now = System.nanoTime();
                if (now < end) {
                  tally.ended(
                      issued,
                      issued,
                      now,
                      error != null ? new Peer.CallEnd("THROWN", error.toString()) : result,
                      call.label());
                }
                slots.release();
              });
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    // The calls still in flight end within their deadline; wait so the next load starts clean.
    slots.tryAcquire(
        inFlight, deadline.plus(Workload.HANG_GRACE).toMillis(), TimeUnit.MILLISECONDS);
    return new Capacity(tally.ok() / seconds, tally);
  }

  /** A {@link #closed} load's OK calls a second, and its calls. */
  record Capacity(double okPerSecond, CallTally tally) {}

  private static void issue(
      Peer.Client client,
      ChaosService.WorkCall call,
      Duration deadline,
      CallTally tally,
      long scheduled) {
    long issued = System.nanoTime();
    CompletableFuture<Peer.CallEnd> ended;
    try {
      ended = client.work(call, deadline);
    } catch (RuntimeException e) {
      tally.ended(
          scheduled,
          issued,
          System.nanoTime(),
          new Peer.CallEnd("THROWN", e.toString()),
          call.label());
      return;
    }
    ended.whenComplete(
        (result, error) ->
            tally.ended(
                scheduled,
                issued,
                System.nanoTime(),
                error != null ? new Peer.CallEnd("THROWN", error.toString()) : result,
                call.label()));
  }
}
