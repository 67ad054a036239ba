package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testing.LogCapture;
import dev.tern.testtools.Toxiproxy;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tern under each network fault in turn (a real Toxiproxy between its client and three servers on
 * 127.0.0.2-4, the mixed workload of {@link Workload}): no call hangs, every call ends OK or with a
 * status a network fault may cause (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED; never INTERNAL or
 * UNKNOWN), calls succeed again within the recovery limit once the fault is taken off, Netty's
 * paranoid leak detector (set by the build) reports no leaked buffer, and the live threads do not
 * grow from one fault's run (a new channel each) to the next.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class TernNetworkFaultsTest {
  /** How long each fault lasts (short: CI). */
  private static final Duration FAULT_TIME = Duration.ofSeconds(2);

  /** How long calls may take to succeed again once the fault is off. */
  private static final Duration RECOVERY_LIMIT = Duration.ofSeconds(10);

  /**
   * The faults that break calls even in 2 s (the others slow them: their calls may all still end
   * within their deadlines once the fault is off).
   */
  private static final Set<Fault> BREAKS_CALLS =
      EnumSet.of(Fault.TIMEOUT, Fault.RESET_PEER, Fault.LIMIT_DATA, Fault.PROXY_DISABLED);

  private static Toxiproxy toxiproxy;
  private static ChaosRun run;
  private static LogCapture leaks;

  /** Live threads after the first fault's run, once the pools have grown to their size. */
  private static int threadsAfterFirst = -1;

  /**
   * Threads that may come and go between two runs (Netty's and the JDK's lazily started helpers); a
   * channel or a server whose threads outlived it would add more with every run.
   */
  private static final int THREAD_SLACK = 4;

  @BeforeAll
  static void start() throws Exception {
    toxiproxy = Toxiproxy.start();
    leaks = new LogCapture("io.netty.util.ResourceLeakDetector", Level.ALL);
    run = ChaosRun.start(new TernPeer(), toxiproxy, 6, FAULT_TIME, RECOVERY_LIMIT);
  }

  @AfterAll
  static void stop() {
    if (run != null) {
      run.close();
    }
    if (toxiproxy != null) {
      toxiproxy.close();
    }
    if (leaks != null) {
      leaks.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Fault.class)
  @Timeout(60)
  void callsEndWithAnAllowedStatusAndRecover(Fault fault) throws Exception {
    FaultResult result = run.run(fault);

    assertThat(result.findings())
        .as("%s: calls that hung or ended with a wrong status; all codes %s", fault, result.codes())
        .isEmpty();
    assertThat(result.recoveryMillis())
        .as(
            "%s: ms until %d calls in a row succeeded after the fault; codes %s",
            fault, ChaosRun.RECOVERED_AFTER, result.codes())
        .isBetween(0L, RECOVERY_LIMIT.toMillis());
    if (BREAKS_CALLS.contains(fault)) {
      assertThat(result.outcomes())
          .as("%s: some call failed (the fault was there); codes %s", fault, result.codes())
          .anyMatch(o -> !o.succeeded());
    }
    System.gc();
    assertThat(
            leaks.records().stream()
                .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                .map(LogRecord::getMessage)
                .toList())
        .as("Netty's leak reports")
        .isEmpty();
    int threads = Thread.activeCount();
    if (threadsAfterFirst < 0) {
      threadsAfterFirst = threads;
    }
    assertThat(threads)
        .as("live threads after %s (the channel shut down) against after the first run", fault)
        .isLessThanOrEqualTo(threadsAfterFirst + THREAD_SLACK);
  }
}
