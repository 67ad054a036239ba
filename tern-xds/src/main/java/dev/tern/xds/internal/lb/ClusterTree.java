package dev.tern.xds.internal.lb;

import dev.tern.Status;
import dev.tern.xds.XdsCluster;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Flattens a cluster and, for an aggregate cluster (gRFC A37), the clusters under it, depth first
 * in their listed order, into the ordered list of leaf clusters (each once, at its first place).
 * Stateless: works on a snapshot of the clusters known so far. Thread-safe.
 */
final class ClusterTree {
  /** How deep aggregate clusters may nest (A37). */
  static final int MAX_DEPTH = 16;

  /**
   * The outcome: the leaves, or an error, or neither while a cluster has not arrived yet; {@code
   * reached} names every cluster the walk needed, to be watched.
   */
  record Outcome(List<XdsCluster> leaves, Status error, Set<String> reached) {
    boolean pending() {
      return leaves == null && error == null;
    }
  }

  /** What is known of one cluster: its value, or that it does not exist, or nothing yet. */
  record Known(XdsCluster value, boolean missing) {}

  private ClusterTree() {}

  static Outcome flatten(String root, Map<String, Known> known) {
    Walk walk = new Walk(known);
    Status error = walk.visit(root, 1, new ArrayList<>());
    if (error != null) {
      return new Outcome(null, error, walk.reached);
    }
    if (walk.pending) {
      return new Outcome(null, null, walk.reached);
    }
    if (walk.leaves.isEmpty()) {
      return new Outcome(
          null,
          Status.UNAVAILABLE.withDescription("aggregate cluster " + root + " has no leaf clusters"),
          walk.reached);
    }
    return new Outcome(List.copyOf(walk.leaves), null, walk.reached);
  }

  private static final class Walk {
    final Map<String, Known> known;
    final Set<String> reached = new LinkedHashSet<>();
    final Set<String> leafNames = new HashSet<>();
    final List<XdsCluster> leaves = new ArrayList<>();
    boolean pending;

    Walk(Map<String, Known> known) {
      this.known = known;
    }

    Status visit(String name, int depth, List<String> stack) {
      if (stack.contains(name)) {
        return Status.UNAVAILABLE.withDescription(
            "aggregate cluster cycle: " + String.join(" -> ", stack) + " -> " + name);
      }
      if (depth > MAX_DEPTH) {
        return Status.UNAVAILABLE.withDescription(
            "aggregate cluster tree deeper than " + MAX_DEPTH + ": " + String.join(" -> ", stack));
      }
      reached.add(name);
      Known cluster = known.get(name);
      if (cluster == null || (cluster.value() == null && !cluster.missing())) {
        pending = true;
        return null;
      }
      if (cluster.missing()) {
        return Status.UNAVAILABLE.withDescription("cluster " + name + " does not exist");
      }
      XdsCluster value = cluster.value();
      if (value.type() != XdsCluster.Type.AGGREGATE) {
        if (leafNames.add(name)) {
          leaves.add(value);
        }
        return null;
      }
      if (value.aggregateClusters().isEmpty()) {
        return Status.UNAVAILABLE.withDescription("aggregate cluster " + name + " is empty");
      }
      stack.add(name);
      for (String child : value.aggregateClusters()) {
        Status error = visit(child, depth + 1, stack);
        if (error != null) {
          return error;
        }
      }
      stack.remove(stack.size() - 1);
      return null;
    }
  }
}
