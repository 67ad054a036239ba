package dev.tern.benchmarks.qps;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * Heap bytes this JVM's threads have allocated, from the JVM's per-thread counters ({@code
 * com.sun.management.ThreadMXBean#getThreadAllocatedBytes}): {@link #total()} twice, around a
 * measured window, gives what the window allocated. Java 17 has no JVM-wide counter, so a thread
 * that ends keeps counting with the bytes it had at the last {@link #total()} that saw it; a thread
 * that starts and ends between two calls is missed. The qps programs' threads (event loops, the
 * application executor) live as long as the run, so that loss is small. Uses the JDK only, as the
 * provider qps programs do ({@link ProviderQpsClient}).
 *
 * <p>Thread-safety: {@link #total()} is synchronized.
 */
final class AllocatedBytes {
  private final com.sun.management.ThreadMXBean threads;
  private final Map<Long, Long> lastSeen = new HashMap<>();

  /**
   * Turns the JVM's per-thread allocation counters on.
   *
   * @throws UnsupportedOperationException on a JVM without them
   */
  AllocatedBytes() {
    if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean)
        || !bean.isThreadAllocatedMemorySupported()) {
      throw new UnsupportedOperationException("this JVM does not count bytes allocated by thread");
    }
    bean.setThreadAllocatedMemoryEnabled(true);
    this.threads = bean;
  }

  /** Bytes allocated so far by every thread seen alive at this or an earlier call. */
  synchronized long total() {
    long[] ids = threads.getAllThreadIds();
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    for (int i = 0; i < ids.length; i++) {
      if (bytes[i] >= 0) { // -1: the thread ended between the two calls above
        lastSeen.put(ids[i], bytes[i]);
      }
    }
    long sum = 0;
    for (long seen : lastSeen.values()) {
      sum += seen;
    }
    return sum;
  }

  /**
   * Prints {@code "SIDE heap bytes per call: N"} (aligned with the summary block), N being {@code
   * bytes / calls} rounded, 0 when there were no calls; bin/bench-compare --bridge reads it.
   */
  static void printPerCall(PrintStream out, String side, long bytes, long calls) {
    out.printf(
        "%-32s%d%n",
        side + " heap bytes per call:", calls == 0 ? 0 : Math.round((double) bytes / calls));
  }
}
