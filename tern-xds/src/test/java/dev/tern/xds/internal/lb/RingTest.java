package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.xds.internal.XxHash64;
import java.util.List;
import org.junit.jupiter.api.Test;

class RingTest {
  private static final List<Ring.Member> EQUAL =
      List.of(
          new Ring.Member("10.0.0.1:80", 1),
          new Ring.Member("10.0.0.2:80", 1),
          new Ring.Member("10.0.0.3:80", 1));

  @Test
  void equalWeightsGetEqualShares() {
    Ring ring = Ring.build(EQUAL, 1024, 4096);
    // min 1024: scale = ceil(1/3 * 1024) * 3 = 1026 points, 342 each.
    assertThat(ring.size()).isEqualTo(1026);
    assertThat(ring.pointsPerMember(3)).containsExactly(342, 342, 342);
  }

  @Test
  void pointsAreInProportionToWeights() {
    Ring ring =
        Ring.build(
            List.of(new Ring.Member("10.0.0.1:80", 1), new Ring.Member("10.0.0.2:80", 3)),
            100,
            4096);
    int[] points = ring.pointsPerMember(2);
    // The lightest gets ceil(0.25 * 100) = 25 points; the heavier three times as many.
    assertThat(points).containsExactly(25, 75);
  }

  @Test
  void maxSizeBoundsTheRing() {
    Ring ring =
        Ring.build(
            List.of(new Ring.Member("10.0.0.1:80", 1), new Ring.Member("10.0.0.2:80", 9999)),
            1024,
            2000);
    assertThat(ring.size()).isEqualTo(2000);
    int[] points = ring.pointsPerMember(2);
    assertThat(points[0]).isLessThanOrEqualTo(1);
    assertThat(points[1]).isGreaterThanOrEqualTo(1999);
  }

  @Test
  void aHashGoesToTheFirstPointAtOrAfterItAndWrapsAround() {
    Ring ring = Ring.build(List.of(new Ring.Member("10.0.0.1:80", 1)), 3, 3);
    long[] points = {
      XxHash64.hash("10.0.0.1:80_0"), XxHash64.hash("10.0.0.1:80_1"), XxHash64.hash("10.0.0.1:80_2")
    };
    long smallest = points[0];
    long largest = points[0];
    for (long p : points) {
      smallest = Long.compareUnsigned(p, smallest) < 0 ? p : smallest;
      largest = Long.compareUnsigned(p, largest) > 0 ? p : largest;
    }
    assertThat(ring.indexOf(smallest)).isEqualTo(0);
    assertThat(ring.indexOf(smallest + 1)).isEqualTo(1);
    assertThat(ring.indexOf(largest)).isEqualTo(2);
    assertThat(ring.indexOf(largest + 1)).isEqualTo(0); // past the last point: the first
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> Ring.build(List.of(), 1, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("members");
    assertThatThrownBy(() -> Ring.build(EQUAL, 5, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ring sizes: min 5, max 4");
  }
}
