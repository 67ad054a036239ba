package dev.tern.xds.internal.lb;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code weighted_target_experimental}'s config: {@code {"targets": {"<name>": {"weight": N,
 * "childPolicy": [...]}}}}. Targets keep their order. Immutable; thread-safe.
 */
record WeightedTargetConfig(Map<String, Target> targets) {
  /** One target: its weight (at least 1) and its policy. */
  record Target(long weight, ChildPolicy policy) {}

  WeightedTargetConfig {
    targets = Collections.unmodifiableMap(new LinkedHashMap<>(targets));
  }

  static WeightedTargetConfig parse(Map<String, ?> raw) {
    JsonConfig json = new JsonConfig(WeightedTargetProvider.NAME, raw);
    Map<String, Target> targets = new LinkedHashMap<>();
    for (Map.Entry<String, ?> entry : json.object("targets", true).entrySet()) {
      String field = "targets." + entry.getKey();
      JsonConfig target = json.nested(field, entry.getValue());
      long weight = target.wholeNumber("weight", 0);
      if (weight < 1 || weight > 0xFFFF_FFFFL) {
        throw json.error(field + ".weight", "must be in 1..4294967295, was " + weight);
      }
      ChildPolicy policy =
          ChildPolicy.select(target, field + ".childPolicy", target.list("childPolicy", true));
      targets.put(entry.getKey(), new Target(weight, policy));
    }
    return new WeightedTargetConfig(targets);
  }
}
