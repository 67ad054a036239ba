package dev.tern.xds.internal.lb;

import dev.tern.xds.XdsCluster;
import dev.tern.xds.XdsTlsContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code cluster_resolver_experimental}'s config: {@code {"discoveryMechanisms": [{"cluster": "c1",
 * "type": "EDS", "edsServiceName": "...", "maxConcurrentRequests": 1024}, {"cluster": "c2", "type":
 * "LOGICAL_DNS", "dnsHostname": "host:port", "outlierDetection": {...}, "reportLoad": true}],
 * "xdsLbPolicy": [{"round_robin": {}}]}}: the leaf clusters in priority order and the policy that
 * picks endpoints within a locality. A mechanism made by the cds balancer also carries its
 * cluster's TLS (A29), which the JSON form has no field for. Immutable; thread-safe.
 */
record ClusterResolverConfig(List<DiscoveryMechanism> mechanisms, ChildPolicy endpointPolicy) {
  /** How one leaf cluster's endpoints are found. */
  record DiscoveryMechanism(
      String cluster,
      XdsCluster.Type type,
      String edsServiceName,
      String dnsHostname,
      long maxConcurrentRequests,
      XdsCluster.OutlierDetection outlierDetection,
      XdsTlsContext upstreamTls,
      boolean reportLoad) {
    DiscoveryMechanism {
      Objects.requireNonNull(cluster, "cluster");
      Objects.requireNonNull(type, "type");
      if (type == XdsCluster.Type.AGGREGATE) {
        throw new IllegalArgumentException("type: an aggregate cluster is not a leaf");
      }
      if (type == XdsCluster.Type.LOGICAL_DNS && dnsHostname == null) {
        throw new IllegalArgumentException("dnsHostname: missing for LOGICAL_DNS " + cluster);
      }
    }

    /** The EDS resource to watch: the service name, else the cluster's own name. */
    String edsResourceName() {
      return edsServiceName == null || edsServiceName.isEmpty() ? cluster : edsServiceName;
    }
  }

  ClusterResolverConfig {
    mechanisms = List.copyOf(mechanisms);
    if (mechanisms.isEmpty()) {
      throw new IllegalArgumentException("discoveryMechanisms: must not be empty");
    }
    Objects.requireNonNull(endpointPolicy, "endpointPolicy");
  }

  static ClusterResolverConfig parse(Map<String, ?> raw) {
    JsonConfig json = new JsonConfig(ClusterResolverProvider.NAME, raw);
    List<DiscoveryMechanism> mechanisms = new ArrayList<>();
    List<?> list = json.list("discoveryMechanisms", true);
    for (int i = 0; i < list.size(); i++) {
      String field = "discoveryMechanisms[" + i + "]";
      JsonConfig entry = json.nested(field, list.get(i));
      String type = entry.string("type", true);
      if (!type.equals("EDS") && !type.equals("LOGICAL_DNS")) {
        throw json.error(field + ".type", "must be EDS or LOGICAL_DNS, was " + type);
      }
      try {
        mechanisms.add(
            new DiscoveryMechanism(
                entry.string("cluster", true),
                XdsCluster.Type.valueOf(type),
                entry.string("edsServiceName", false),
                entry.string("dnsHostname", false),
                entry.wholeNumber("maxConcurrentRequests", XdsCluster.DEFAULT_MAX_REQUESTS),
                entry.has("outlierDetection")
                    ? OutlierDetectionConfig.parseDetection(
                        entry.nested("outlierDetection", entry.object("outlierDetection", true)))
                    : null,
                null, // the cluster's TLS is not part of the JSON form
                entry.bool("reportLoad")));
      } catch (IllegalArgumentException e) {
        throw json.error(field, e.getMessage());
      }
    }
    if (mechanisms.isEmpty()) {
      throw json.error("discoveryMechanisms", "must not be empty");
    }
    return new ClusterResolverConfig(
        mechanisms, ChildPolicy.select(json, "xdsLbPolicy", json.list("xdsLbPolicy", true)));
  }
}
