package dev.tern.benchmarks.qps;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The measuring half of a qps client, shared by {@link QpsClient}, {@link GrpcJavaBalancedClient}
 * and {@link ProviderQpsClient} so that every system is timed by the same code: each closed loop (a
 * call, its answer, the next call) records every call's latency here and asks {@link #running()}
 * before the next one; {@link #measure} lets the loops warm up, keeps what they record during the
 * measured window and then stops them. A loop whose call fails ends; the failures are counted and
 * the first one kept, for {@link #reportFailures} to sum up in one line.
 *
 * <p>Thread-safety: the latency {@link Recorder}, the failure count and the first failure are
 * written from the loops' callback threads and are thread-safe; the run flag is volatile; {@link
 * #measure} and {@link #reportFailures} belong to the main thread.
 */
final class ClosedLoops {
  /** Latencies up to one minute, three significant digits, as grpc-java's tool records them. */
  static final long MAX_LATENCY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Recorder recorder = new Recorder(MAX_LATENCY_NANOS, 3);
  private final CountDownLatch ended;
  private final LongAdder failures = new LongAdder();
  private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
  private volatile boolean running = true;

  /** For {@code loops} loops. */
  ClosedLoops(int loops) {
    this.ended = new CountDownLatch(loops);
  }

  /** Whether a loop should start its next call (false once the measured window is over). */
  boolean running() {
    return running;
  }

  /** Records the latency of a call (or ping-pong) started at {@code startNanos}. */
  void recordLatency(long startNanos) {
    recorder.recordValue(Math.min(System.nanoTime() - startNanos, MAX_LATENCY_NANOS));
  }

  /** A loop stopped because {@link #running()} said so. */
  void ended() {
    ended.countDown();
  }

  /** A loop stopped because its call (or stream) failed with {@code failure}. */
  void failed(Throwable failure) {
    failures.increment();
    firstFailure.compareAndSet(null, failure);
    ended.countDown();
  }

  /**
   * If any call failed, prints {@code "PROGRAM: N calls failed; the first: STATUS"} to {@code err}
   * and returns true.
   */
  boolean reportFailures(String program, PrintStream err) {
    long failed = failures.sum();
    if (failed == 0) {
      return false;
    }
    Throwable first = firstFailure.get();
    String description = first.getMessage() != null ? first.getMessage() : first.toString();
    err.println(
        program
            + ": "
            + failed
            + (failed == 1 ? " call" : " calls")
            + " failed; the first: "
            + description.replace('\n', ' '));
    return true;
  }

  /**
   * Waits through the warm-up, then through the measured window, stops the loops and waits up to 30
   * s for them to end; when every loop has ended on a failure before that, it stops waiting.
   * Returns the latencies of the measured window; the histogram's end time stamp is the window's
   * length in milliseconds (its start, 0).
   */
  Histogram measure(int warmupSeconds, int durationSeconds) throws InterruptedException {
    return measure(warmupSeconds, durationSeconds, () -> {}, () -> {});
  }

  /**
   * As {@link #measure(int, int)}, running {@code windowStart} on the main thread as the measured
   * window opens and {@code windowEnd} as it closes (before the loops are stopped), so that
   * something else can be measured over the same window.
   */
  Histogram measure(
      int warmupSeconds, int durationSeconds, Runnable windowStart, Runnable windowEnd)
      throws InterruptedException {
    boolean allFailed = ended.await(warmupSeconds, TimeUnit.SECONDS);
    recorder.getIntervalHistogram(); // drops the warm-up
    windowStart.run();
    long start = System.nanoTime();
    if (!allFailed) {
      ended.await(durationSeconds, TimeUnit.SECONDS);
    }
    Histogram measured = recorder.getIntervalHistogram();
    long elapsed = System.nanoTime() - start;
    windowEnd.run();
    running = false;
    ended.await(30, TimeUnit.SECONDS);
    measured.setStartTimeStamp(0);
    measured.setEndTimeStamp(TimeUnit.NANOSECONDS.toMillis(elapsed));
    return measured;
  }

  /**
   * Prints the summary block grpc-java's {@code AsyncClient} prints (11 lines, read by
   * bin/bench-compare): the load, latency percentiles in microseconds and calls per second.
   */
  static void printSummary(
      PrintStream out,
      int channels,
      int outstanding,
      int serverPayload,
      int clientPayload,
      Histogram histogram,
      long elapsedMillis) {
    long qps = Math.round(histogram.getTotalCount() * 1000.0 / Math.max(1, elapsedMillis));
    out.printf("Channels:                       %d%n", channels);
    out.printf("Outstanding RPCs per Channel:   %d%n", outstanding);
    out.printf("Server Payload Size:            %d%n", serverPayload);
    out.printf("Client Payload Size:            %d%n", clientPayload);
    out.printf("50%%ile Latency (in micros):     %d%n", micros(histogram.getValueAtPercentile(50)));
    out.printf("90%%ile Latency (in micros):     %d%n", micros(histogram.getValueAtPercentile(90)));
    out.printf("95%%ile Latency (in micros):     %d%n", micros(histogram.getValueAtPercentile(95)));
    out.printf("99%%ile Latency (in micros):     %d%n", micros(histogram.getValueAtPercentile(99)));
    out.printf(
        "99.9%%ile Latency (in micros):   %d%n", micros(histogram.getValueAtPercentile(99.9)));
    out.printf("Maximum Latency (in micros):    %d%n", micros(histogram.getMaxValue()));
    out.printf("QPS:                            %d%n", qps);
  }

  private static long micros(long nanos) {
    return TimeUnit.NANOSECONDS.toMicros(nanos);
  }
}
