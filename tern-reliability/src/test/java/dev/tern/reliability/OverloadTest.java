package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testing.LogCapture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CI version of {@code bin/overload}: a Tern server with {@code maxConcurrentCalls} in a child
 * JVM with a 256 MiB heap, its capacity measured, then open-loop calls at 1.25x and 1.5x of it for
 * 8 s each. What a user would notice: the server survives with its heap after GC far under its
 * bound, every call ends within its deadline (plus the hang grace) with OK or a clear overload
 * status (RESOURCE_EXHAUSTED, UNAVAILABLE, DEADLINE_EXCEEDED) carrying a description, the excess is
 * shed with RESOURCE_EXHAUSTED naming the limit, the server's threads do not pile up, and Netty's
 * paranoid leak detector reports nothing in the client (the server child's reports go to the
 * build's output). No latency is asserted: the figures belong in docs/reliability.md.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class OverloadTest {
  /**
   * Two cores' worth of CPU-bound calls and two more: enough to keep the server's cores busy, few
   * enough that its busy threads leave CPU to its transport threads and to this JVM's client on the
   * same machine (16 starved the client into ending calls seconds late on a loaded machine).
   */
  private static final int MAX_CALLS = 4;

  private static final Duration DEADLINE = Duration.ofSeconds(1);

  /**
   * The loaded steps, as multiples of the capacity. With Netty's paranoid leak detection in both
   * JVMs their event loops, not the handlers, run out first above about 3,000 calls a second
   * offered on a 2-core machine, which 2x-3x of the capacity measured here (700 to 1,750 calls/s)
   * can reach: calls then waited past their deadlines to be read or refused at all, and one run's
   * longest call was 3.07 s of its 3 s bound. 1.25x and 1.5x overload the handlers without that.
   */
  private static final List<Double> OVERLOADS = List.of(1.25, 1.5);

  /** Heap after GC a server serving this load keeps (a few MiB: see docs/reliability.md). */
  private static final long HEAP_BOUND = 64L * 1024 * 1024;

  /**
   * Threads the server may add under overload over the unloaded step (executor threads, and the
   * JVM's own that come and go).
   */
  private static final long THREAD_SLACK = 2L * MAX_CALLS + 8;

  @Test
  @Timeout(180)
  void anOverloadedServerShedsClearlyAndStaysBounded() throws Exception {
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    OverloadRun.Result result;
    try (LogCapture leaks = new LogCapture("io.netty.util.ResourceLeakDetector", Level.ALL)) {
      result =
          OverloadRun.run(
              new OverloadRun.Options(
                  "tern",
                  MAX_CALLS,
                  true,
                  OVERLOADS,
                  0,
                  Duration.ofSeconds(3),
                  Duration.ofSeconds(8),
                  Duration.ofSeconds(8),
                  DEADLINE,
                  WorkLoad.Arrivals.POISSON,
                  List.of(
                      "-Xmx256m",
                      "-XX:+ExitOnOutOfMemoryError",
                      "-Dio.netty.leakDetection.level=paranoid"),
                  "",
                  OverloadWorkload.WORK),
              new PrintStream(progress, true, StandardCharsets.UTF_8));
      System.gc();
      assertThat(
              leaks.records().stream()
                  .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                  .map(LogRecord::getMessage)
                  .toList())
          .as("Netty's leak reports in the client")
          .isEmpty();
    }
    String table = OverloadReport.table(List.of(result));
    System.out.print(table);

    assertThat(result.findings()).as("findings:%n%s", table).isEmpty();
    assertThat(result.steps()).as("the unloaded step and the overloads").hasSize(3);
    long unloadedThreads = result.steps().get(0).server().threads();
    for (OverloadRun.Step step : result.steps()) {
      assertThat(step.server().heapBytes())
          .as("server heap after GC after %sx%n%s", step.multiple(), table)
          .isLessThan(HEAP_BOUND);
      assertThat(step.server().threads())
          .as("server threads after %sx%n%s", step.multiple(), table)
          .isLessThanOrEqualTo(unloadedThreads + THREAD_SLACK);
      assertThat(step.longestNanos())
          .as("the longest call at %sx, from its start%n%s", step.multiple(), table)
          .isLessThanOrEqualTo(DEADLINE.plus(Workload.HANG_GRACE).toNanos());
      assertThat(step.counts().getOrDefault("OK", 0L))
          .as("calls served at %sx%n%s", step.multiple(), table)
          .isPositive();
    }
    OverloadRun.Step heaviest = result.steps().get(2);
    assertThat(heaviest.counts().getOrDefault("RESOURCE_EXHAUSTED", 0L))
        .as("calls shed at 1.5x%n%s", table)
        .isPositive();
    assertThat(heaviest.descriptions().get("RESOURCE_EXHAUSTED"))
        .contains(MAX_CALLS + " calls in progress, its limit (maxConcurrentCalls)");
  }
}
