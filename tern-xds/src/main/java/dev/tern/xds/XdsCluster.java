package dev.tern.xds;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A validated Cluster (A27, A37 aggregate clusters, A42 ring hash, A48 least request, A50 outlier
 * detection, A32 circuit breaking, A52/A58 weighted round robin). Immutable.
 *
 * @param edsServiceName for {@code EDS}: the ClusterLoadAssignment to fetch ({@code
 *     eds_cluster_config.service_name}, or the cluster's own name when empty); else null
 * @param dnsHostPort for {@code LOGICAL_DNS}: the one endpoint's {@code host:port}; else null
 * @param aggregateClusters for {@code AGGREGATE}: the prioritized child clusters; else empty
 * @param maxConcurrentRequests the DEFAULT priority's {@code circuit_breakers} {@code
 *     max_requests}, 1024 when unset
 * @param outlierDetection the cluster's outlier detection, or null when it has none
 * @param upstreamTls its {@code transport_socket}'s UpstreamTlsContext (A29), or null for none
 * @param reportLoad whether it has {@code lrs_server} ({@code self}, the only kind accepted): its
 *     calls' load is reported to the control plane (LRS)
 */
public record XdsCluster(
    String name,
    Type type,
    String edsServiceName,
    String dnsHostPort,
    List<String> aggregateClusters,
    LbPolicy lbPolicy,
    long maxConcurrentRequests,
    OutlierDetection outlierDetection,
    XdsTlsContext upstreamTls,
    boolean reportLoad) {
  /** {@code circuit_breakers}' default for {@code max_requests}. */
  public static final long DEFAULT_MAX_REQUESTS = 1024;

  /** The kinds of cluster a gRPC client supports. */
  public enum Type {
    EDS,
    LOGICAL_DNS,
    AGGREGATE
  }

  public XdsCluster {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    aggregateClusters = List.copyOf(aggregateClusters);
    Objects.requireNonNull(lbPolicy, "lbPolicy");
  }

  /**
   * The load-balancing policy: the cluster's {@code load_balancing_policy} (A52) when it has one,
   * else its {@code lb_policy}.
   *
   * @param minRingSize for {@code RING_HASH}, else 0
   * @param maxRingSize for {@code RING_HASH}, else 0
   * @param choiceCount for {@code LEAST_REQUEST}, else 0
   * @param weightedRoundRobin for {@code WEIGHTED_ROUND_ROBIN} (A58), else null
   */
  public record LbPolicy(
      Kind kind,
      long minRingSize,
      long maxRingSize,
      int choiceCount,
      WeightedRoundRobin weightedRoundRobin) {
    /** The policies Tern accepts. */
    public enum Kind {
      ROUND_ROBIN,
      RING_HASH,
      LEAST_REQUEST,
      WEIGHTED_ROUND_ROBIN
    }

    public static final LbPolicy ROUND_ROBIN = new LbPolicy(Kind.ROUND_ROBIN, 0, 0, 0);

    public LbPolicy {
      Objects.requireNonNull(kind, "kind");
      if ((kind == Kind.WEIGHTED_ROUND_ROBIN) != (weightedRoundRobin != null)) {
        throw new IllegalArgumentException(
            "weightedRoundRobin: required for WEIGHTED_ROUND_ROBIN and only for it");
      }
    }

    /** A policy other than {@code WEIGHTED_ROUND_ROBIN}. */
    public LbPolicy(Kind kind, long minRingSize, long maxRingSize, int choiceCount) {
      this(kind, minRingSize, maxRingSize, choiceCount, null);
    }

    /** A {@code WEIGHTED_ROUND_ROBIN} policy. */
    public static LbPolicy weightedRoundRobin(WeightedRoundRobin config) {
      return new LbPolicy(Kind.WEIGHTED_ROUND_ROBIN, 0, 0, 0, config);
    }
  }

  /**
   * {@code ClientSideWeightedRoundRobin}'s settings (A58), the proto's defaults filled in.
   *
   * @param weightUpdatePeriod at least 100 ms
   * @param errorUtilizationPenalty at least 0
   */
  public record WeightedRoundRobin(
      boolean enableOobLoadReport,
      Duration oobReportingPeriod,
      Duration blackoutPeriod,
      Duration weightExpirationPeriod,
      Duration weightUpdatePeriod,
      float errorUtilizationPenalty) {
    public WeightedRoundRobin {
      Objects.requireNonNull(oobReportingPeriod, "oobReportingPeriod");
      Objects.requireNonNull(blackoutPeriod, "blackoutPeriod");
      Objects.requireNonNull(weightExpirationPeriod, "weightExpirationPeriod");
      Objects.requireNonNull(weightUpdatePeriod, "weightUpdatePeriod");
    }
  }

  /**
   * Outlier detection (A50); a null ejection part means that algorithm is off.
   *
   * @param maxEjectionPercent percent of the endpoints that may be ejected at once
   */
  public record OutlierDetection(
      Duration interval,
      Duration baseEjectionTime,
      Duration maxEjectionTime,
      int maxEjectionPercent,
      SuccessRateEjection successRate,
      FailurePercentageEjection failurePercentage) {
    public OutlierDetection {
      Objects.requireNonNull(interval, "interval");
      Objects.requireNonNull(baseEjectionTime, "baseEjectionTime");
      Objects.requireNonNull(maxEjectionTime, "maxEjectionTime");
    }
  }

  /** The success-rate algorithm's parameters. */
  public record SuccessRateEjection(
      int stdevFactor, int enforcementPercentage, int minimumHosts, int requestVolume) {}

  /** The failure-percentage algorithm's parameters. */
  public record FailurePercentageEjection(
      int threshold, int enforcementPercentage, int minimumHosts, int requestVolume) {}
}
