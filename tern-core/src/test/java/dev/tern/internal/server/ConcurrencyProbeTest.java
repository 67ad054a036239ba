package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.internal.server.ConcurrencyProbe.Verdict;
import org.junit.jupiter.api.Test;

/**
 * What the adaptive limit's probe concludes from the windows after it doubled the limit: a slower
 * service only when twice the calls in progress served more calls a second, in every deciding
 * window.
 */
class ConcurrencyProbeTest {
  private static final long MS = 1_000_000;

  private final ConcurrencyProbe probe = new ConcurrencyProbe();

  /** Calls a nanosecond by Little's law: {@code meanInProgress} calls of {@code meanNanos} each. */
  private static double rate(double meanInProgress, long meanNanos) {
    return meanInProgress / meanNanos;
  }

  /** Starts a probe from a limit of 8, at 2 ms with 5 calls in progress on average. */
  private void startAtEight() {
    assertThat(probe.start(8, 2 * MS, rate(5, 2 * MS))).isEqualTo(16);
    // A limit of 16 is one window of calls admitted before the change, skipped.
    assertThat(probe.observe(16, 4 * MS, rate(10, 4 * MS), false)).isEqualTo(Verdict.PENDING);
  }

  @Test
  void twiceTheCallsAtTheSameLatency_inEveryDecidingWindow_isASlowerService() {
    startAtEight();

    assertThat(probe.observe(16, 2 * MS, rate(10, 2 * MS), false)).isEqualTo(Verdict.PENDING);
    assertThat(probe.observe(15, 2 * MS, rate(9.5, 2 * MS), false)).isEqualTo(Verdict.SLOWER);
    assertThat(probe.probing()).isFalse();
  }

  @Test
  void latencyThatFollowedTheCalls_isQueueing() {
    startAtEight();

    assertThat(probe.observe(16, 4 * MS, rate(10, 4 * MS), false)).isEqualTo(Verdict.QUEUEING);
    assertThat(probe.probing()).isFalse();
  }

  @Test
  void aPeakAboveTheOldLimitWithTheMeanWhereItWas_provesNothing() {
    startAtEight();

    // One call in progress above the old limit, but on the whole as many as before, at about the
    // same latency: the queue had not filled (the run of 2026-11-27 read this as a slower service
    // and took a queue's 1.5 ms for the unloaded latency of a 0.2 ms call).
    assertThat(probe.observe(9, 2200_000, rate(5.5, 2200_000), false)).isEqualTo(Verdict.QUEUEING);
  }

  @Test
  void oneWindowThatLooksSlowerAndOneThatDoesNot_isQueueing() {
    startAtEight();

    assertThat(probe.observe(16, 2 * MS, rate(10, 2 * MS), false)).isEqualTo(Verdict.PENDING);
    assertThat(probe.observe(16, 4 * MS, rate(10, 4 * MS), false)).isEqualTo(Verdict.QUEUEING);
  }

  @Test
  void afterQueueing_noProbeStartsAtTheSameLatencyUntilTheCooldownPasses() {
    startAtEight();
    probe.observe(16, 4 * MS, rate(10, 4 * MS), false);

    for (int i = 0; i < ConcurrencyProbe.COOLDOWN_WINDOWS; i++) {
      assertThat(probe.mayStart(2 * MS)).as("window %s", i).isFalse();
    }
    assertThat(probe.mayStart(2 * MS)).isTrue();
  }

  @Test
  void mostlyLateWindows_areNeverASlowerService() {
    startAtEight();

    assertThat(probe.observe(16, 2 * MS, rate(10, 2 * MS), true)).isEqualTo(Verdict.QUEUEING);
  }

  @Test
  void aSlowerService_isTakenAtTheLowestLatencyTheProbeSaw() {
    // The windows of 2026-11-28's stream run: twice the calls served about twice as many a second,
    // but the second deciding window's median was 1.5 times the one before, a queue starting. The
    // service's own latency is the lower one, not the queue's (3.6 ms, which it held to after).
    probe.start(8, 2430_000, rate(4.7, 2430_000));
    assertThat(probe.observe(16, 4 * MS, rate(10, 4 * MS), false)).isEqualTo(Verdict.PENDING);

    assertThat(probe.observe(16, 2370_000, rate(9.6, 2370_000), false)).isEqualTo(Verdict.PENDING);
    assertThat(probe.observe(16, 3630_000, rate(12.5, 3630_000), false)).isEqualTo(Verdict.SLOWER);
    assertThat(probe.serviceLatency()).isEqualTo(2370_000);
  }

  @Test
  void aSlowerServiceFasterInItsWindowBefore_isTakenAtThatWindowsLatency() {
    startAtEight();

    assertThat(probe.observe(16, 2500_000, rate(10, 2500_000), false)).isEqualTo(Verdict.PENDING);
    assertThat(probe.observe(16, 2600_000, rate(10, 2600_000), false)).isEqualTo(Verdict.SLOWER);
    assertThat(probe.serviceLatency()).isEqualTo(2 * MS);
  }
}
