package dev.tern.xds.internal.lb;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code priority_experimental}'s config: {@code {"priorities": ["a", "b"], "children": {"a":
 * {"config": [...], "ignoreReresolutionRequests": false}}}}, highest priority first. Immutable;
 * thread-safe.
 */
record PriorityConfig(List<String> priorities, Map<String, Child> children) {
  /** One priority's policy. */
  record Child(ChildPolicy policy, boolean ignoreReresolutionRequests) {}

  PriorityConfig {
    priorities = List.copyOf(priorities);
    children = Map.copyOf(children);
    for (String name : priorities) {
      if (!children.containsKey(name)) {
        throw new IllegalArgumentException(
            PriorityProvider.NAME + " config: priorities: " + name + " has no entry in children");
      }
    }
  }

  static PriorityConfig parse(Map<String, ?> raw) {
    JsonConfig json = new JsonConfig(PriorityProvider.NAME, raw);
    List<String> priorities = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Object name : json.list("priorities", true)) {
      if (!(name instanceof String s) || s.isEmpty()) {
        throw json.error("priorities", "must hold non-empty strings, was " + name);
      }
      if (!seen.add(s)) {
        throw json.error("priorities", "duplicate " + s);
      }
      priorities.add(s);
    }
    if (priorities.isEmpty()) {
      throw json.error("priorities", "must not be empty");
    }
    Map<String, Child> children = new LinkedHashMap<>();
    for (Map.Entry<String, ?> entry : json.object("children", true).entrySet()) {
      String field = "children." + entry.getKey();
      JsonConfig child = json.nested(field, entry.getValue());
      children.put(
          entry.getKey(),
          new Child(
              ChildPolicy.select(child, field + ".config", child.list("config", true)),
              child.bool("ignoreReresolutionRequests")));
    }
    return new PriorityConfig(priorities, children);
  }
}
