package dev.tern.xds.internal.lb;

import dev.tern.xds.XdsCluster;
import dev.tern.xds.XdsEndpoints.DropOverload;
import dev.tern.xds.XdsTlsContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code cluster_impl_experimental}'s config: {@code {"cluster": "c1", "edsServiceName": "...",
 * "maxConcurrentRequests": 1024, "dropCategories": [{"category": "lb", "requestsPerMillion":
 * 1000}], "childPolicy": [...], "reportLoad": true}}; {@code reportLoad} counts the calls' load for
 * the control plane's LRS stream. When made by the cluster resolver it also carries the cluster's
 * TLS (A29: the UpstreamTlsContext, or null for plaintext), which the JSON form has no field for.
 * Immutable; thread-safe.
 */
record ClusterImplConfig(
    String cluster,
    String edsServiceName,
    long maxConcurrentRequests,
    List<DropOverload> dropCategories,
    ChildPolicy childPolicy,
    XdsTlsContext upstreamTls,
    boolean reportLoad) {
  ClusterImplConfig {
    Objects.requireNonNull(cluster, "cluster");
    dropCategories = List.copyOf(dropCategories);
    Objects.requireNonNull(childPolicy, "childPolicy");
  }

  static ClusterImplConfig parse(Map<String, ?> raw) {
    JsonConfig json = new JsonConfig(ClusterImplProvider.NAME, raw);
    List<DropOverload> drops = new ArrayList<>();
    List<?> categories = json.list("dropCategories", false);
    for (int i = 0; i < categories.size(); i++) {
      String field = "dropCategories[" + i + "]";
      JsonConfig drop = json.nested(field, categories.get(i));
      long perMillion = drop.wholeNumber("requestsPerMillion", 0);
      if (perMillion > 1_000_000) {
        throw json.error(
            field + ".requestsPerMillion", "must be at most 1000000, was " + perMillion);
      }
      drops.add(new DropOverload(drop.string("category", true), (int) perMillion));
    }
    return new ClusterImplConfig(
        json.string("cluster", true),
        json.string("edsServiceName", false),
        json.wholeNumber("maxConcurrentRequests", XdsCluster.DEFAULT_MAX_REQUESTS),
        drops,
        ChildPolicy.select(json, "childPolicy", json.list("childPolicy", true)),
        null, // the JSON form has no field for the cluster's TLS
        json.bool("reportLoad"));
  }
}
