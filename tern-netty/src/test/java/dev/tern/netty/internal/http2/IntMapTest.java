package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The int-keyed map answers as a HashMap would, through growth and removals in any order. */
class IntMapTest {
  @Test
  void emptyMapFindsNothing() {
    IntMap<String> map = new IntMap<>();

    assertThat(map.get(1)).isNull();
    assertThat(map.remove(1)).isNull();
    assertThat(map.isEmpty()).isTrue();
    assertThat(map.values()).isEmpty();
  }

  @Test
  void putGetReplaceRemoveAndClear() {
    IntMap<String> map = new IntMap<>();

    assertThat(map.put(3, "a")).isNull();
    assertThat(map.put(5, "b")).isNull();
    assertThat(map.put(3, "c")).isEqualTo("a");

    assertThat(map.size()).isEqualTo(2);
    assertThat(map.get(3)).isEqualTo("c");
    assertThat(map.remove(3)).isEqualTo("c");
    assertThat(map.get(3)).isNull();
    assertThat(map.values()).containsExactly("b");
    map.clear();
    assertThat(map.isEmpty()).isTrue();
    assertThat(map.get(5)).isNull();
  }

  @Test
  void keysThatAreNotStreamIdsAndNullValuesAreRefused() {
    IntMap<String> map = new IntMap<>();

    assertThatThrownBy(() -> map.put(0, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must be positive: 0");
    assertThatThrownBy(() -> map.put(-7, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must be positive: -7");
    assertThatThrownBy(() -> map.put(1, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("value must not be null");
  }

  /** Random puts and removes of one side's ids (odd, as a client's) against a HashMap. */
  @Test
  void agreesWithAHashMapThroughManyPutsAndRemoves() {
    Random random = new Random(42);
    IntMap<Integer> map = new IntMap<>();
    Map<Integer, Integer> expected = new HashMap<>();
    for (int round = 0; round < 200_000; round++) {
      int key = 2 * random.nextInt(300) + 1;
      if (random.nextInt(3) == 0) {
        assertThat(map.remove(key)).isEqualTo(expected.remove(key));
      } else {
        assertThat(map.put(key, round)).isEqualTo(expected.put(key, round));
      }
      int probe = 2 * random.nextInt(300) + 1;
      assertThat(map.get(probe)).as("key %d", probe).isEqualTo(expected.get(probe));
      assertThat(map.size()).isEqualTo(expected.size());
    }
    assertThat(map.values()).containsExactlyInAnyOrderElementsOf(expected.values());
  }
}
