package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.internal.server.GrowthTrial.Verdict;
import org.junit.jupiter.api.Test;

/**
 * What the adaptive limit's trial of a step up concludes: the step goes back only when latency
 * followed it and the calls a second did not, and trials that went back in a row wait longer and
 * longer before the next.
 */
class GrowthTrialTest {
  private static final long US = 1_000;

  private final GrowthTrial trial = new GrowthTrial();

  /** Calls a nanosecond by Little's law: {@code meanInProgress} calls of {@code meanNanos} each. */
  private static double rate(double meanInProgress, long meanNanos) {
    return meanInProgress / meanNanos;
  }

  /** A baseline at a limit of 4: 3.5 calls in progress, 500 us each, at a median of 500 us. */
  private void baselineAtFour() {
    for (int i = 0; i < GrowthTrial.WINDOWS; i++) {
      trial.note(4, true, rate(3.5, 500 * US), 500 * US);
    }
  }

  /** Steps from 4 to 6; its first window, of calls admitted before the step, is skipped. */
  private void stepToSix() {
    assertThat(trial.mayStart(4)).isTrue();
    trial.start(4, 6);
    assertThat(trial.testing()).isTrue();
    assertThat(trial.observe(rate(5, 750 * US), 750 * US)).isEqualTo(Verdict.PENDING);
  }

  @Test
  void aStepThatOnlyLengthensTheWait_goesBack() {
    baselineAtFour();
    stepToSix();

    // One core, saturated: half as many calls again, each waiting half as long again.
    assertThat(trial.observe(rate(5.2, 780 * US), 760 * US)).isEqualTo(Verdict.PENDING);
    assertThat(trial.observe(rate(5.1, 760 * US), 740 * US)).isEqualTo(Verdict.REVERT);
    assertThat(trial.testing()).isFalse();
    assertThat(trial.limitBefore()).isEqualTo(4);
  }

  @Test
  void aStepThatServesMoreCalls_staysEvenIfLatencyRose() {
    baselineAtFour();
    stepToSix();

    // A second core: more calls a second, at a somewhat longer wait.
    assertThat(trial.observe(rate(5.2, 600 * US), 700 * US)).isEqualTo(Verdict.PENDING);
    assertThat(trial.observe(rate(5.1, 600 * US), 700 * US)).isEqualTo(Verdict.KEEP);
  }

  @Test
  void aStepAtTheSameLatency_stays() {
    baselineAtFour();
    stepToSix();

    // Calls that wait on I/O: more of them, each as long.
    assertThat(trial.observe(rate(5, 500 * US), 520 * US)).isEqualTo(Verdict.PENDING);
    assertThat(trial.observe(rate(5, 500 * US), 480 * US)).isEqualTo(Verdict.KEEP);
  }

  @Test
  void aStepThatStayed_isTheBaselineOfTheNext() {
    baselineAtFour();
    stepToSix();
    trial.observe(rate(5, 500 * US), 500 * US);
    assertThat(trial.observe(rate(5, 500 * US), 500 * US)).isEqualTo(Verdict.KEEP);

    // Calls that wait on I/O climb a step per trial, not a step per trial and its baseline.
    assertThat(trial.mayStart(6)).isTrue();
    trial.start(6, 8.4);
    trial.observe(rate(7, 500 * US), 500 * US);
    trial.observe(rate(7, 500 * US), 500 * US);
    assertThat(trial.observe(rate(7, 500 * US), 500 * US)).isEqualTo(Verdict.KEEP);
  }

  @Test
  void aTrialNeedsABaselineOfWindowsNearTheLimitItHas() {
    assertThat(trial.mayStart(4)).isFalse();
    trial.note(4, true, rate(3.5, 500 * US), 500 * US);
    assertThat(trial.mayStart(4)).as("one window").isFalse();
    trial.note(4, false, rate(1, 500 * US), 500 * US);
    trial.note(4, true, rate(3.5, 500 * US), 500 * US);
    assertThat(trial.mayStart(4)).as("a window far from the limit between").isFalse();
    trial.note(6, true, rate(3.5, 500 * US), 500 * US);
    assertThat(trial.mayStart(6)).as("a window at another limit before").isFalse();
    trial.note(6, true, rate(3.5, 500 * US), 500 * US);
    assertThat(trial.mayStart(6)).isTrue();
    assertThat(trial.mayStart(4)).isFalse();
  }

  @Test
  void trialsThatWentBackInARow_waitTwiceAsLongEachTime_andOneThatStayed_resetsTheWait() {
    assertThat(cooldownAfterGoingBack()).isEqualTo(GrowthTrial.MIN_COOLDOWN_WINDOWS);
    assertThat(cooldownAfterGoingBack()).isEqualTo(2 * GrowthTrial.MIN_COOLDOWN_WINDOWS);
    assertThat(cooldownAfterGoingBack()).isEqualTo(4 * GrowthTrial.MIN_COOLDOWN_WINDOWS);

    stepToSix();
    trial.observe(rate(5, 500 * US), 500 * US);
    assertThat(trial.observe(rate(5, 500 * US), 500 * US)).isEqualTo(Verdict.KEEP);
    assertThat(cooldownAfterGoingBack()).isEqualTo(GrowthTrial.MIN_COOLDOWN_WINDOWS);
  }

  @Test
  void theWaitBetweenTrials_isBounded() {
    int cooldown = 0;
    for (int i = 0; i < 12; i++) {
      cooldown = cooldownAfterGoingBack();
    }
    assertThat(cooldown).isEqualTo(GrowthTrial.MAX_COOLDOWN_WINDOWS);
  }

  @Test
  void aTrialCancelledByTheLimiter_waitsAsOneThatWentBack() {
    baselineAtFour();
    stepToSix();

    trial.cancel();

    assertThat(trial.testing()).isFalse();
    assertThat(windowsUntilTheNextTrial()).isEqualTo(GrowthTrial.MIN_COOLDOWN_WINDOWS);
  }

  /**
   * Runs a trial from 4 to 6 that goes back (after a baseline, measured if need be), and counts the
   * windows at 4 before the next may start.
   */
  private int cooldownAfterGoingBack() {
    if (!trial.mayStart(4)) {
      baselineAtFour();
    }
    stepToSix();
    trial.observe(rate(5, 750 * US), 750 * US);
    assertThat(trial.observe(rate(5, 750 * US), 750 * US)).isEqualTo(Verdict.REVERT);
    return windowsUntilTheNextTrial();
  }

  private int windowsUntilTheNextTrial() {
    int windows = 0;
    while (!trial.mayStart(4)) {
      trial.note(4, true, rate(3.5, 500 * US), 500 * US);
      windows++;
    }
    return windows;
  }
}
