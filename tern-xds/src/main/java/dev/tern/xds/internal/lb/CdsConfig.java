package dev.tern.xds.internal.lb;

import java.util.Map;
import java.util.Objects;

/** {@code cds_experimental}'s config: {@code {"cluster": "c1"}}. Immutable; thread-safe. */
record CdsConfig(String cluster) {
  CdsConfig {
    Objects.requireNonNull(cluster, "cluster");
  }

  static CdsConfig parse(Map<String, ?> raw) {
    JsonConfig json = new JsonConfig(CdsProvider.NAME, raw);
    String cluster = json.string("cluster", true);
    if (cluster.isEmpty()) {
      throw json.error("cluster", "must not be empty");
    }
    return new CdsConfig(cluster);
  }
}
