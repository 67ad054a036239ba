package dev.tern.benchmarks.qps;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A qps server's heap bytes per call over a window that opens {@code warmupSeconds} after its first
 * call and lasts {@code durationSeconds}, the client's window when both are given the same {@code
 * --warmup_duration} and {@code --duration}: the bytes the server's threads allocate in it ({@link
 * AllocatedBytes}) over the calls (unary calls, or ping-pong rounds) it answers in it. Printed as
 * {@code Server heap bytes per call: N}, which bin/bench-compare --bridge reads. Shared by {@link
 * QpsServer} and {@link ProviderQpsServer}; the JDK only.
 *
 * <p>Thread-safety: {@link #called} is called from any thread; {@link #count} runs on its own.
 */
final class ServerHeapCount {
  private final LongAdder calls = new LongAdder();
  private final CountDownLatch firstCall = new CountDownLatch(1);

  /** Counts a call (or a ping-pong round). */
  void called() {
    calls.increment();
    if (firstCall.getCount() != 0) {
      firstCall.countDown();
    }
  }

  /** Runs {@link #count} on a daemon thread. */
  void startCounting(int warmupSeconds, int durationSeconds, PrintStream out) {
    Thread counter =
        new Thread(() -> count(warmupSeconds, durationSeconds, out), "server-heap-count");
    counter.setDaemon(true);
    counter.start();
  }

  /**
   * Waits for the first call and through the window, then prints the calls counted in it and the
   * heap bytes per call, two lines.
   */
  void count(int warmupSeconds, int durationSeconds, PrintStream out) {
    AllocatedBytes heap = new AllocatedBytes();
    try {
      firstCall.await();
      TimeUnit.SECONDS.sleep(warmupSeconds);
      long callsBefore = calls.sum();
      long bytesBefore = heap.total();
      TimeUnit.SECONDS.sleep(durationSeconds);
      long bytes = heap.total() - bytesBefore;
      long counted = calls.sum() - callsBefore;
      out.println("Server calls counted:           " + counted);
      AllocatedBytes.printPerCall(out, "Server", bytes, counted);
      out.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
