package dev.tern.benchmarks.qps;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The measuring half of a qps client, shared by {@link QpsClient} and {@link
 * GrpcJavaBalancedClient} so that both systems are timed by the same code: each closed loop (a
 * call, its answer, the next call) records every call's latency here and asks {@link #running()}
 * before the next one; {@link #measure} lets the loops warm up, keeps what they record during the
 * measured window and then stops them.
 *
 * <p>Thread-safety: the latency {@link Recorder} and the error stream (a {@link PrintStream}, which
 * locks itself) are written from the loops' callback threads; the run flag is volatile; {@link
 * #measure} belongs to the main thread.
 */
final class ClosedLoops {
  /** Latencies up to one minute, three significant digits, as grpc-java's tool records them. */
  static final long MAX_LATENCY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Recorder recorder = new Recorder(MAX_LATENCY_NANOS, 3);
  private final CountDownLatch ended;
  private final PrintStream err;
  private volatile boolean running = true;

  /** For {@code loops} loops, which report failures to {@code err}. */
  ClosedLoops(int loops, PrintStream err) {
    this.ended = new CountDownLatch(loops);
    this.err = err;
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

  /**
   * A loop stopped because {@code what} failed with {@code failure}; printed to the error stream.
   */
  void failed(String what, Throwable failure) {
    err.println(what + " failed: " + failure);
    ended.countDown();
  }

  /**
   * Sleeps through the warm-up, then through the measured window, stops the loops and waits up to
   * 30 s for them to end. Returns the latencies of the measured window; the histogram's end time
   * stamp is the window's length in milliseconds (its start, 0).
   */
  Histogram measure(int warmupSeconds, int durationSeconds) throws InterruptedException {
    TimeUnit.SECONDS.sleep(warmupSeconds);
    recorder.getIntervalHistogram(); // drops the warm-up
    long start = System.nanoTime();
    TimeUnit.SECONDS.sleep(durationSeconds);
    Histogram measured = recorder.getIntervalHistogram();
    long elapsed = System.nanoTime() - start;
    running = false;
    ended.await(30, TimeUnit.SECONDS);
    measured.setStartTimeStamp(0);
    measured.setEndTimeStamp(TimeUnit.NANOSECONDS.toMillis(elapsed));
    return measured;
  }
}
