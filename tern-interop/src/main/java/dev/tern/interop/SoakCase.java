package dev.tern.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * The loop of the soak cases, as gRPC's interop test descriptions define it: {@link
 * SoakConfig#iterations} iterations shared by {@link SoakConfig#threads} threads; an iteration
 * fails when its call throws or takes longer than {@link SoakConfig#maxLatencyMs}; each thread
 * starts its iterations at least {@link SoakConfig#minTimeMsBetweenRpcs} apart and none after
 * {@link SoakConfig#overallTimeoutSeconds}. The case fails when more than {@link
 * SoakConfig#maxFailures} iterations failed or not every iteration ran in time.
 *
 * <p>Thread-safe: the counters are atomic; each run is independent.
 */
final class SoakCase {
  /** One iteration: a call (and for channel_soak, the channel it runs on). */
  interface Iteration {
    void run() throws Exception;
  }

  private SoakCase() {}

  /**
   * Runs {@code iteration} as {@code config} says.
   *
   * @return a one-line summary (iterations, failures, slowest)
   * @throws AssertionError naming the failures, when the case fails
   */
  static String run(SoakConfig config, Iteration iteration) throws InterruptedException {
    return run(config, iteration, System::nanoTime);
  }

  /** {@link #run(SoakConfig, Iteration)} timed by {@code clock} (nanoseconds, as nanoTime). */
  static String run(SoakConfig config, Iteration iteration, LongSupplier clock)
      throws InterruptedException {
    long deadline = clock.getAsLong() + TimeUnit.SECONDS.toNanos(config.overallTimeoutSeconds());
    AtomicInteger done = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    AtomicInteger slow = new AtomicInteger();
    AtomicReference<Long> slowestNanos = new AtomicReference<>(0L);
    AtomicReference<String> firstError = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < config.threads(); t++) {
      int share =
          config.iterations() / config.threads()
              + (t < config.iterations() % config.threads() ? 1 : 0);
      Thread thread =
          new Thread(
              () -> {
                for (int i = 0; i < share && clock.getAsLong() - deadline < 0; i++) {
                  long start = clock.getAsLong();
                  boolean failed = false;
                  try {
                    iteration.run();
                  } catch (Exception | AssertionError e) {
                    failed = true;
                    firstError.compareAndSet(null, String.valueOf(e));
                  }
                  long took = clock.getAsLong() - start;
                  slowestNanos.accumulateAndGet(took, Math::max);
                  if (took > TimeUnit.MILLISECONDS.toNanos(config.maxLatencyMs())) {
                    slow.incrementAndGet();
                    failed = true;
                  }
                  if (failed) {
                    failures.incrementAndGet();
                  }
                  done.incrementAndGet();
                  long next = start + TimeUnit.MILLISECONDS.toNanos(config.minTimeMsBetweenRpcs());
                  long wait = next - clock.getAsLong();
                  if (wait > 0) {
                    try {
                      TimeUnit.NANOSECONDS.sleep(wait);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                }
              },
              "soak-" + t);
      threads.add(thread);
      thread.start();
    }
    try {
      for (Thread thread : threads) {
        thread.join();
      }
    } finally {
      threads.forEach(Thread::interrupt);
    }
    String summary =
        String.format(
            "%d of %d iterations ran, %d failed (%d over %d ms), slowest %d ms%s",
            done.get(),
            config.iterations(),
            failures.get(),
            slow.get(),
            config.maxLatencyMs(),
            TimeUnit.NANOSECONDS.toMillis(slowestNanos.get()),
            firstError.get() == null ? "" : "; first error: " + firstError.get());
    if (failures.get() > config.maxFailures()) {
      throw new AssertionError(
          summary + "; more than soak_max_failures=" + config.maxFailures() + " failed");
    }
    if (done.get() < config.iterations()) {
      throw new AssertionError(
          summary
              + "; soak_overall_timeout_seconds="
              + config.overallTimeoutSeconds()
              + " passed first");
    }
    return summary;
  }
}
