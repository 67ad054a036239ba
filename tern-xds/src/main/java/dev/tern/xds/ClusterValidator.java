package dev.tern.xds;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.config.cluster.v3.CircuitBreakers;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.RoutingPriority;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.extensions.clusters.aggregate.v3.ClusterConfig;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Validates a Cluster (A27, A37, A42, A48, A50, A32, A52) into an {@link XdsCluster}. Stateless.
 */
final class ClusterValidator {
  static final String AGGREGATE_CLUSTER_TYPE = "envoy.clusters.aggregate";
  static final String AGGREGATE_CONFIG_TYPE_URL =
      "type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig";
  static final long MAX_RING_SIZE = 8 * 1024 * 1024;

  private ClusterValidator() {}

  static XdsCluster validate(Cluster cluster) throws XdsResourceException {
    return validate(cluster, Set.of());
  }

  /**
   * @param instances the bootstrap's certificate provider instance names, which a {@code
   *     transport_socket} may name
   */
  static XdsCluster validate(Cluster cluster, Set<String> instances) throws XdsResourceException {
    String prefix = "Cluster \"" + cluster.getName() + "\": ";
    XdsCluster.Type type;
    String edsServiceName = null;
    String dnsHostPort = null;
    List<String> aggregate = List.of();
    switch (cluster.getClusterDiscoveryTypeCase()) {
      case TYPE -> {
        switch (cluster.getType()) {
          case EDS -> {
            type = XdsCluster.Type.EDS;
            Cluster.EdsClusterConfig eds = cluster.getEdsClusterConfig();
            if (!eds.hasEdsConfig() || !ListenerValidator.isAdsOrSelf(eds.getEdsConfig())) {
              throw new XdsResourceException(
                  prefix + "eds_cluster_config.eds_config: must be ads or self");
            }
            edsServiceName =
                eds.getServiceName().isEmpty() ? cluster.getName() : eds.getServiceName();
          }
          case LOGICAL_DNS -> {
            type = XdsCluster.Type.LOGICAL_DNS;
            dnsHostPort = logicalDns(cluster.getLoadAssignment(), prefix);
          }
          default ->
              throw new XdsResourceException(
                  prefix + "type " + cluster.getType() + " is not supported");
        }
      }
      case CLUSTER_TYPE -> {
        Cluster.CustomClusterType custom = cluster.getClusterType();
        if (!custom.getName().equals(AGGREGATE_CLUSTER_TYPE)) {
          throw new XdsResourceException(
              prefix + "cluster_type " + custom.getName() + " is not supported");
        }
        if (!custom.getTypedConfig().getTypeUrl().equals(AGGREGATE_CONFIG_TYPE_URL)) {
          throw new XdsResourceException(
              prefix
                  + "cluster_type.typed_config: type "
                  + custom.getTypedConfig().getTypeUrl()
                  + " is not the aggregate cluster's config");
        }
        try {
          aggregate = ClusterConfig.parseFrom(custom.getTypedConfig().getValue()).getClustersList();
        } catch (InvalidProtocolBufferException e) {
          throw new XdsResourceException(
              prefix + "cluster_type.typed_config: cannot be decoded: " + e.getMessage());
        }
        if (aggregate.isEmpty()) {
          throw new XdsResourceException(prefix + "cluster_type.typed_config.clusters: empty");
        }
        type = XdsCluster.Type.AGGREGATE;
      }
      default -> throw new XdsResourceException(prefix + "neither type nor cluster_type is set");
    }
    XdsCluster.LbPolicy lb =
        cluster.hasLoadBalancingPolicy()
            ? LoadBalancingPolicyValidator.validate(cluster.getLoadBalancingPolicy(), prefix)
            : lbPolicy(cluster, prefix);
    long maxRequests = maxRequests(cluster.getCircuitBreakers());
    XdsCluster.OutlierDetection outlier = null;
    if (cluster.hasOutlierDetection()) {
      outlier = outlierDetection(cluster.getOutlierDetection(), prefix + "outlier_detection.");
    }
    XdsTlsContext tls = null;
    if (cluster.hasTransportSocket()) {
      tls =
          TlsContextValidator.upstream(
              cluster.getTransportSocket(), prefix + "transport_socket", instances);
    }
    // A27: load reports go to the control plane that sent the cluster, or nowhere.
    if (cluster.hasLrsServer() && !cluster.getLrsServer().hasSelf()) {
      throw new XdsResourceException(
          prefix + "lrs_server: must be self (reports go to this control plane only)");
    }
    return new XdsCluster(
        cluster.getName(),
        type,
        edsServiceName,
        dnsHostPort,
        aggregate,
        lb,
        maxRequests,
        outlier,
        tls,
        cluster.hasLrsServer());
  }

  private static String logicalDns(ClusterLoadAssignment assignment, String prefix)
      throws XdsResourceException {
    if (assignment.getEndpointsCount() != 1
        || assignment.getEndpoints(0).getLbEndpointsCount() != 1) {
      throw new XdsResourceException(
          prefix
              + "load_assignment: a LOGICAL_DNS cluster needs exactly one locality with one"
              + " endpoint");
    }
    var endpoint = assignment.getEndpoints(0).getLbEndpoints(0).getEndpoint();
    if (!endpoint.getAddress().hasSocketAddress()) {
      throw new XdsResourceException(
          prefix
              + "load_assignment.endpoints[0].lb_endpoints[0].endpoint.address: not a"
              + " socket_address");
    }
    SocketAddress address = endpoint.getAddress().getSocketAddress();
    if (address.getAddress().isEmpty()) {
      throw new XdsResourceException(prefix + "load_assignment: the endpoint's address is empty");
    }
    if (address.getPortSpecifierCase() != SocketAddress.PortSpecifierCase.PORT_VALUE) {
      throw new XdsResourceException(prefix + "load_assignment: the endpoint has no port_value");
    }
    return address.getAddress() + ":" + address.getPortValue();
  }

  private static XdsCluster.LbPolicy lbPolicy(Cluster cluster, String prefix)
      throws XdsResourceException {
    switch (cluster.getLbPolicy()) {
      case ROUND_ROBIN:
        return XdsCluster.LbPolicy.ROUND_ROBIN;
      case RING_HASH:
        {
          Cluster.RingHashLbConfig ring = cluster.getRingHashLbConfig();
          long min = ring.hasMinimumRingSize() ? ring.getMinimumRingSize().getValue() : 1024;
          long max =
              ring.hasMaximumRingSize() ? ring.getMaximumRingSize().getValue() : MAX_RING_SIZE;
          if (ring.getHashFunction() != Cluster.RingHashLbConfig.HashFunction.XX_HASH) {
            throw new XdsResourceException(
                prefix
                    + "ring_hash_lb_config.hash_function "
                    + ring.getHashFunction()
                    + " is not supported");
          }
          String ringField = prefix + "ring_hash_lb_config.";
          if (max > MAX_RING_SIZE) {
            throw new XdsResourceException(
                ringField + "maximum_ring_size: " + max + " is over " + MAX_RING_SIZE + " (A42)");
          }
          if (min < 1 || min > max) {
            throw new XdsResourceException(
                ringField
                    + "minimum_ring_size: "
                    + min
                    + " is not in 1..maximum_ring_size ("
                    + max
                    + ")");
          }
          return new XdsCluster.LbPolicy(XdsCluster.LbPolicy.Kind.RING_HASH, min, max, 0);
        }
      case LEAST_REQUEST:
        {
          if (!XdsFeatures.current().leastRequest()) {
            throw new XdsResourceException(
                prefix
                    + "lb_policy LEAST_REQUEST is not supported (switched off by the environment)");
          }
          Cluster.LeastRequestLbConfig lr = cluster.getLeastRequestLbConfig();
          long choices =
              lr.hasChoiceCount() ? Integer.toUnsignedLong(lr.getChoiceCount().getValue()) : 2;
          if (choices < 2) {
            throw new XdsResourceException(
                prefix
                    + "least_request_lb_config.choice_count: must be at least 2, was "
                    + choices);
          }
          return new XdsCluster.LbPolicy(
              XdsCluster.LbPolicy.Kind.LEAST_REQUEST, 0, 0, (int) Math.min(choices, 10));
        }
      default:
        throw new XdsResourceException(
            prefix + "lb_policy " + cluster.getLbPolicy() + " is not supported");
    }
  }

  private static long maxRequests(CircuitBreakers breakers) {
    for (CircuitBreakers.Thresholds t : breakers.getThresholdsList()) {
      if (t.getPriority() == RoutingPriority.DEFAULT && t.hasMaxRequests()) {
        return Integer.toUnsignedLong(t.getMaxRequests().getValue());
      }
    }
    return XdsCluster.DEFAULT_MAX_REQUESTS;
  }

  private static XdsCluster.OutlierDetection outlierDetection(
      io.envoyproxy.envoy.config.cluster.v3.OutlierDetection od, String prefix)
      throws XdsResourceException {
    Duration interval =
        od.hasInterval()
            ? Durations.of(od.getInterval(), prefix + "interval")
            : Duration.ofSeconds(10);
    if (interval.isZero()) {
      // A sweep every 0 s would never end; Envoy's proto requires more than 0 too.
      throw new XdsResourceException(prefix + "interval: must be positive");
    }
    Duration base =
        od.hasBaseEjectionTime()
            ? Durations.of(od.getBaseEjectionTime(), prefix + "base_ejection_time")
            : Duration.ofSeconds(30);
    Duration max =
        od.hasMaxEjectionTime()
            ? Durations.of(od.getMaxEjectionTime(), prefix + "max_ejection_time")
            : Duration.ofSeconds(300);
    int maxPercent =
        percent(
            od.hasMaxEjectionPercent(),
            od.getMaxEjectionPercent(),
            10,
            prefix + "max_ejection_percent");
    XdsCluster.SuccessRateEjection successRate = null;
    int enforcingSuccess =
        percent(
            od.hasEnforcingSuccessRate(),
            od.getEnforcingSuccessRate(),
            100,
            prefix + "enforcing_success_rate");
    if (enforcingSuccess > 0) {
      successRate =
          new XdsCluster.SuccessRateEjection(
              value(od.hasSuccessRateStdevFactor(), od.getSuccessRateStdevFactor(), 1900),
              enforcingSuccess,
              value(od.hasSuccessRateMinimumHosts(), od.getSuccessRateMinimumHosts(), 5),
              value(od.hasSuccessRateRequestVolume(), od.getSuccessRateRequestVolume(), 100));
    }
    XdsCluster.FailurePercentageEjection failure = null;
    int threshold =
        percent(
            od.hasFailurePercentageThreshold(),
            od.getFailurePercentageThreshold(),
            85,
            prefix + "failure_percentage_threshold");
    int enforcingFailure =
        percent(
            od.hasEnforcingFailurePercentage(),
            od.getEnforcingFailurePercentage(),
            0,
            prefix + "enforcing_failure_percentage");
    if (enforcingFailure > 0) {
      failure =
          new XdsCluster.FailurePercentageEjection(
              threshold,
              enforcingFailure,
              value(
                  od.hasFailurePercentageMinimumHosts(), od.getFailurePercentageMinimumHosts(), 5),
              value(
                  od.hasFailurePercentageRequestVolume(),
                  od.getFailurePercentageRequestVolume(),
                  50));
    }
    return new XdsCluster.OutlierDetection(interval, base, max, maxPercent, successRate, failure);
  }

  private static int percent(boolean has, UInt32Value value, int absent, String field)
      throws XdsResourceException {
    if (!has) {
      return absent;
    }
    long v = Integer.toUnsignedLong(value.getValue());
    if (v > 100) {
      throw new XdsResourceException(field + ": must be at most 100, was " + v);
    }
    return (int) v;
  }

  private static int value(boolean has, UInt32Value value, int absent) {
    return has
        ? (int) Math.min(Integer.toUnsignedLong(value.getValue()), Integer.MAX_VALUE)
        : absent;
  }
}
