package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.xds.XdsCluster;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterTreeTest {
  private final Map<String, ClusterTree.Known> known = new HashMap<>();

  private void eds(String name) {
    known.put(
        name,
        new ClusterTree.Known(
            new XdsCluster(
                name,
                XdsCluster.Type.EDS,
                null,
                null,
                List.of(),
                XdsCluster.LbPolicy.ROUND_ROBIN,
                XdsCluster.DEFAULT_MAX_REQUESTS,
                null,
                null,
                false),
            false));
  }

  private void aggregate(String name, String... children) {
    known.put(
        name,
        new ClusterTree.Known(
            new XdsCluster(
                name,
                XdsCluster.Type.AGGREGATE,
                null,
                null,
                List.of(children),
                XdsCluster.LbPolicy.ROUND_ROBIN,
                XdsCluster.DEFAULT_MAX_REQUESTS,
                null,
                null,
                false),
            false));
  }

  private List<String> leaves(String root) {
    ClusterTree.Outcome outcome = ClusterTree.flatten(root, known);
    assertThat(outcome.error()).isNull();
    return outcome.leaves().stream().map(XdsCluster::name).toList();
  }

  private String error(String root) {
    return ClusterTree.flatten(root, known).error().getDescription();
  }

  @Test
  void aggregateTreeFlattensDepthFirstInOrderEachLeafOnce() {
    aggregate("root", "a", "b", "c");
    aggregate("a", "a1", "a2");
    aggregate("b", "a2", "b1");
    eds("a1");
    eds("a2");
    eds("b1");
    eds("c");
    assertThat(leaves("root")).containsExactly("a1", "a2", "b1", "c");
    assertThat(ClusterTree.flatten("root", known).reached())
        .containsExactlyInAnyOrder("root", "a", "b", "c", "a1", "a2", "b1");
  }

  @Test
  void aPlainClusterIsItsOwnLeaf() {
    eds("c1");
    assertThat(leaves("c1")).containsExactly("c1");
  }

  @Test
  void waitsForClustersNotYetReceived() {
    aggregate("root", "a", "b");
    eds("a");
    ClusterTree.Outcome outcome = ClusterTree.flatten("root", known);
    assertThat(outcome.pending()).isTrue();
    assertThat(outcome.reached()).contains("b");
  }

  @Test
  void cycleIsAnError() {
    aggregate("root", "a");
    aggregate("a", "b");
    aggregate("b", "root");
    assertThat(error("root")).isEqualTo("aggregate cluster cycle: root -> a -> b -> root");
  }

  @Test
  void treeDeeperThanSixteenIsAnError() {
    for (int i = 0; i < 16; i++) {
      aggregate("c" + i, "c" + (i + 1));
    }
    eds("c16");
    assertThat(error("c0")).startsWith("aggregate cluster tree deeper than 16: c0 -> c1");
    known.remove("c16");
    eds("c15");
    assertThat(leaves("c0")).containsExactly("c15");
  }

  @Test
  void emptyAggregateAndMissingClusterAreErrors() {
    aggregate("root");
    assertThat(error("root")).isEqualTo("aggregate cluster root is empty");
    aggregate("root", "gone");
    known.put("gone", new ClusterTree.Known(null, true));
    assertThat(error("root")).isEqualTo("cluster gone does not exist");
  }
}
