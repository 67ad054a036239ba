package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.internal.server.ConcurrencyProbe.Verdict;
import org.junit.jupiter.api.Test;

/**
 * What the adaptive limit's probe concludes from the windows after it doubled the limit: a slower
 * service only when twice the calls in progress served more calls a second than its baseline (the
 * windows measured after the one that started it), in every deciding window.
 */
class ConcurrencyProbeTest {
  private static final long MS = 1_000_000;

  private final ConcurrencyProbe probe = new ConcurrencyProbe();

  /** Calls a nanosecond by Little's law: {@code meanInProgress} calls of {@code meanNanos} each. */
  private static double rate(double meanInProgress, long meanNanos) {
    return meanInProgress / meanNanos;
  }

  /** The rate at which the server counts as at its pace: well above every baseline here. */
  private static final double AT_PACE = rate(100, MS);

  /** Starts a probe from a limit of 8, with a baseline at 2 ms and 5 calls in progress. */
  private void startAtEight() {
    startAtEight(2 * MS, 2 * MS);
  }

  /** Starts a probe from a limit of 8, with a baseline of two windows at these medians. */
  private void startAtEight(long firstMedian, long secondMedian) {
    probe.start(8, AT_PACE);
    assertThat(probe.observe(8, firstMedian, rate(5, firstMedian), false))
        .isEqualTo(Verdict.PENDING);
    assertThat(probe.observe(8, secondMedian, rate(5, secondMedian), false))
        .isEqualTo(Verdict.DOUBLE);
    assertThat(probe.doubledLimit()).isEqualTo(16);
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
    startAtEight(2430_000, 2430_000);

    assertThat(probe.observe(16, 2370_000, rate(9.6, 2370_000), false)).isEqualTo(Verdict.PENDING);
    assertThat(probe.observe(16, 3630_000, rate(12.5, 3630_000), false)).isEqualTo(Verdict.SLOWER);
    assertThat(probe.serviceLatency()).isEqualTo(2370_000);
  }

  @Test
  void aSlowerServiceFasterInItsBaseline_isTakenAtTheBaselinesLatency() {
    startAtEight(2100_000, 2 * MS);

    assertThat(probe.observe(16, 2500_000, rate(10, 2500_000), false)).isEqualTo(Verdict.PENDING);
    assertThat(probe.observe(16, 2600_000, rate(10, 2600_000), false)).isEqualTo(Verdict.SLOWER);
    assertThat(probe.serviceLatency()).isEqualTo(2 * MS);
  }

  @Test
  void aBaselineBackAtTheServersPace_endsTheProbeWithoutDoubling() {
    // The window that started the probe held more expensive calls than most; the two after it
    // served at the server's pace: a queue, read as such without running at twice the limit.
    probe.start(8, rate(5, 2 * MS));

    assertThat(probe.observe(8, 2 * MS, rate(5, 2 * MS), false)).isEqualTo(Verdict.PENDING);
    assertThat(probe.observe(8, 2 * MS, rate(5.2, 2 * MS), false)).isEqualTo(Verdict.QUEUEING);
    assertThat(probe.probing()).isFalse();
    assertThat(probe.mayStart(2 * MS)).isFalse();
  }

  @Test
  void aMostlyLateBaselineWindow_endsTheProbeAsQueueing() {
    probe.start(8, AT_PACE);

    assertThat(probe.observe(8, 2 * MS, rate(5, 2 * MS), true)).isEqualTo(Verdict.QUEUEING);
  }
}
