package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * How the adaptive limit learns from latencies it is given (no clock: each call's latency is what
 * the simulated service would take with so many calls in progress).
 */
class AdaptiveConcurrencyLimitTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit();

  /**
   * One round: {@code offered} calls try to start at once; those admitted end with the latency
   * {@code service} gives for that many calls in progress.
   *
   * @return the calls admitted
   */
  private int round(int offered, IntToLongFunction service) {
    int admitted = 0;
    while (admitted < offered && limit.tryAcquire()) {
      admitted++;
    }
    long latency = service.applyAsLong(admitted);
    for (int i = 0; i < admitted; i++) {
      limit.release(latency);
    }
    return admitted;
  }

  /**
   * Teaches the limiter an unloaded latency of 1 ms, then an overload that takes it to its floor.
   */
  private void overloadToTheFloor() {
    for (int i = 0; i < 64; i++) {
      round(1, inProgress -> MS);
    }
    for (int i = 0; i < 64 * AdaptiveConcurrencyLimit.WINDOW; i++) {
      round(1, inProgress -> 100 * MS);
    }
    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.MIN_LIMIT);
  }

  @Test
  void coldLimiter_refusesNothingUpToItsCeiling() {
    assertThat(round(AdaptiveConcurrencyLimit.MAX_LIMIT + 5, inProgress -> MS))
        .isEqualTo(AdaptiveConcurrencyLimit.MAX_LIMIT);
  }

  @Test
  void blockingHandler_200CallsOfASleep_areAllAdmittedOnceTheLimitLearns() {
    // The worst start: a limit at its floor, learned from a service 50 times faster.
    overloadToTheFloor();
    IntToLongFunction sleeps50Ms = inProgress -> 50 * MS; // waiting costs no CPU

    int rounds = 0;
    while (round(200, sleeps50Ms) < 200) {
      rounds++;
      // Two periods of windows at the floor to take the new baseline, then the climb.
      assertThat(rounds).as("rounds to learn").isLessThan(300);
    }

    assertThat(limit.limit()).isGreaterThanOrEqualTo(200);
    for (int i = 0; i < 100; i++) {
      assertThat(round(200, sleeps50Ms))
          .as("admitted in round %s after learning", i)
          .isEqualTo(200);
    }
  }

  @Test
  void cpuBoundService_limitSettlesWhereLatencyStaysWithinTwiceUnloaded() {
    // 16 cores, 0.3 ms of CPU a call: beyond 16 calls in progress, latency grows with them.
    IntToLongFunction cpuBound = inProgress -> 300_000L * Math.max(1, (inProgress + 15) / 16);
    for (int i = 0; i < 64; i++) {
      round(4, cpuBound); // unloaded: the limiter learns 0.3 ms
    }

    List<Long> latencies = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      int admitted = round(2000, cpuBound);
      latencies.add(cpuBound.applyAsLong(admitted));
    }

    assertThat(limit.limit()).isBetween(16, 64);
    assertThat(latencies.subList(300, 400))
        .allSatisfy(l -> assertThat(l).isLessThanOrEqualTo(3 * 300_000L));
  }

  @Test
  void latencyRisingForGood_shrinksTheLimitToItsFloor_thenItRecovers() {
    overloadToTheFloor();

    for (int i = 0; i < 300; i++) {
      round(2000, inProgress -> MS);
    }
    assertThat(limit.limit()).isGreaterThanOrEqualTo(2000);
  }

  @Test
  void fewCallsInProgress_neverRaiseALearnedLimit() {
    overloadToTheFloor();

    for (int i = 0; i < 500; i++) {
      round(3, inProgress -> MS);
    }

    assertThat(limit.limit()).isEqualTo(AdaptiveConcurrencyLimit.MIN_LIMIT);
  }

  @Test
  void recentLatency_isTheMedianOfTheLastFullWindow() {
    assertThat(limit.recentLatencyNanos()).isZero();
    for (int i = 0; i < AdaptiveConcurrencyLimit.WINDOW; i++) {
      assertThat(limit.tryAcquire()).isTrue();
      limit.release(i < AdaptiveConcurrencyLimit.WINDOW / 2 ? MS : 9 * MS);
    }
    assertThat(limit.recentLatencyNanos()).isEqualTo(9 * MS);

    assertThat(limit.tryAcquire()).isTrue();
    limit.release(); // no sample: a failed call
    assertThat(limit.recentLatencyNanos()).isEqualTo(9 * MS);
    assertThat(limit.inProgress()).isZero();
  }

  @Test
  void aSampleBelowZero_countsAsZero() {
    for (int i = 0; i < AdaptiveConcurrencyLimit.WINDOW; i++) {
      limit.tryAcquire();
      limit.release(-5);
    }
    assertThat(limit.recentLatencyNanos()).isZero();
    assertThat(limit.limit())
        .isBetween(AdaptiveConcurrencyLimit.MIN_LIMIT, AdaptiveConcurrencyLimit.MAX_LIMIT);
  }

  @Test
  void manyThreadsAtOnce_neverExceedTheLimitAndGiveEverySlotBack() throws InterruptedException {
    int threads = 8;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int i = 0; i < 20_000; i++) {
                  if (limit.tryAcquire()) {
                    limit.release((i % 7 + 1) * MS);
                  }
                }
              });
      thread.start();
      started.add(thread);
    }
    go.countDown();
    for (Thread thread : started) {
      thread.join();
    }

    assertThat(limit.inProgress()).isZero();
    assertThat(limit.limit())
        .isBetween(AdaptiveConcurrencyLimit.MIN_LIMIT, AdaptiveConcurrencyLimit.MAX_LIMIT);
    assertThat(limit.recentLatencyNanos()).isBetween(MS, 7 * MS);
  }
}
