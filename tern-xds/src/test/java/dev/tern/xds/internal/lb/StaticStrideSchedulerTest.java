package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StaticStrideSchedulerTest {
  private static int[] count(StaticStrideScheduler scheduler, int endpoints, int picks) {
    int[] counts = new int[endpoints];
    for (int i = 0; i < picks; i++) {
      counts[scheduler.pick()]++;
    }
    return counts;
  }

  @Test
  void picksInProportionToTheWeights() {
    StaticStrideScheduler scheduler = new StaticStrideScheduler(new double[] {1, 2, 3}, 0);
    int[] counts = count(scheduler, 3, 60_000);
    assertThat(counts[0]).isBetween(9_800, 10_200);
    assertThat(counts[1]).isBetween(19_800, 20_200);
    assertThat(counts[2]).isBetween(29_800, 30_200);
  }

  @Test
  void theLargestWeightIsScaledToTheMaximumAndOthersRelativeToIt() {
    StaticStrideScheduler scheduler = new StaticStrideScheduler(new double[] {10, 5, 2.5}, 0);
    assertThat(scheduler.scaledWeights())
        .containsExactly(StaticStrideScheduler.MAX_WEIGHT, 32768, 16384);
  }

  @Test
  void anEndpointWithoutWeightGetsTheMeanOfTheOthers() {
    StaticStrideScheduler scheduler = new StaticStrideScheduler(new double[] {1, 3, 0}, 0);
    int[] counts = count(scheduler, 3, 60_000);
    // weights 1, 3 and the mean 2
    assertThat(counts[0]).isBetween(9_800, 10_200);
    assertThat(counts[1]).isBetween(29_800, 30_200);
    assertThat(counts[2]).isBetween(19_800, 20_200);
  }

  @Test
  void withoutAnyWeightItIsRoundRobin() {
    StaticStrideScheduler scheduler = new StaticStrideScheduler(new double[] {0, 0, 0, 0}, 7);
    int first = scheduler.pick();
    for (int i = 1; i < 12; i++) {
      assertThat(scheduler.pick()).isEqualTo((first + i) % 4);
    }
  }

  @Test
  void aTinyWeightStillGetsSomePicks() {
    StaticStrideScheduler scheduler = new StaticStrideScheduler(new double[] {1e9, 1}, 0);
    assertThat(scheduler.scaledWeights()).containsExactly(StaticStrideScheduler.MAX_WEIGHT, 1);
  }

  @Test
  void aSequenceNearItsEndKeepsPicking() {
    StaticStrideScheduler scheduler =
        new StaticStrideScheduler(new double[] {1, 2}, Long.MAX_VALUE - 5);
    int[] counts = count(scheduler, 2, 3_000);
    assertThat(counts[0]).isBetween(900, 1_100);
    assertThat(counts[1]).isBetween(1_900, 2_100);
  }

  @Test
  void noWeightsIsRefused() {
    assertThatThrownBy(() -> new StaticStrideScheduler(new double[0], 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("weights");
  }
}
