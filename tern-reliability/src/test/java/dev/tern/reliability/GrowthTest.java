package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class GrowthTest {
  @Test
  void slopeOfALineIsItsSlopeAndGrowthSpansTheSamples() {
    List<Double> seconds = List.of(0.0, 10.0, 20.0, 30.0);
    assertThat(Growth.slope(seconds, List.of(5.0, 7.0, 9.0, 11.0))).isCloseTo(0.2, within(1e-9));
    assertThat(Growth.over(seconds, List.of(5.0, 7.0, 9.0, 11.0))).isCloseTo(6.0, within(1e-9));
  }

  @Test
  void oneHighSampleInTheMiddleIsNotATrend() {
    List<Double> seconds = List.of(0.0, 10.0, 20.0, 30.0, 40.0);
    assertThat(Growth.over(seconds, List.of(100.0, 100.0, 180.0, 100.0, 100.0)))
        .isCloseTo(0.0, within(1e-9));
  }

  @Test
  void toleranceIsTheFloorOrTheFractionOfTheFirstValue() {
    Growth threads = Growth.of(ResourceSample.Metric.THREADS);
    assertThat(threads.tolerance(10)).isEqualTo(4);
    assertThat(threads.tolerance(100)).isCloseTo(10, within(1e-9));
  }

  @Test
  void tooFewOrMismatchedSamplesAreRejected() {
    assertThatThrownBy(() -> Growth.slope(List.of(1.0), List.of(1.0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 2 samples");
    assertThatThrownBy(() -> Growth.slope(List.of(1.0, 1.0), List.of(1.0, 2.0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("distinct times");
  }
}
