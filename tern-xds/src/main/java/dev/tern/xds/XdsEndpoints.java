package dev.tern.xds;

import java.util.List;
import java.util.Objects;

/**
 * A validated ClusterLoadAssignment: localities by priority with their weights and endpoints, and
 * the drop policy. Localities of weight 0 are left out (A27). Immutable.
 *
 * @param clusterName the resource name
 * @param localities the localities, each with its priority (0 the highest; the priorities used are
 *     0..n-1 without gaps)
 * @param dropOverloads the categories of calls to drop and their rates
 */
public record XdsEndpoints(
    String clusterName, List<LocalityEndpoints> localities, List<DropOverload> dropOverloads) {
  public XdsEndpoints {
    Objects.requireNonNull(clusterName, "clusterName");
    localities = List.copyOf(localities);
    dropOverloads = List.copyOf(dropOverloads);
  }

  /** A locality: where it is, its weight and priority, and its endpoints. */
  public record LocalityEndpoints(
      String region,
      String zone,
      String subZone,
      int weight,
      int priority,
      List<Endpoint> endpoints) {
    public LocalityEndpoints {
      Objects.requireNonNull(region, "region");
      Objects.requireNonNull(zone, "zone");
      Objects.requireNonNull(subZone, "subZone");
      endpoints = List.copyOf(endpoints);
    }
  }

  /**
   * An endpoint.
   *
   * @param weight its {@code load_balancing_weight}, 1 when unset
   * @param hostname its {@code endpoint.hostname}, empty when unset: the server name a cluster with
   *     {@code auto_host_sni} sends to it (A101)
   */
  public record Endpoint(String host, int port, HealthStatus health, int weight, String hostname) {
    public Endpoint {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(health, "health");
      Objects.requireNonNull(hostname, "hostname");
    }

    /** An endpoint without a host name. */
    public Endpoint(String host, int port, HealthStatus health, int weight) {
      this(host, port, health, weight, "");
    }
  }

  /** The endpoint's {@code health_status}, as A27 groups them. */
  public enum HealthStatus {
    UNKNOWN,
    HEALTHY,
    DEGRADED,
    UNHEALTHY,
    DRAINING,
    TIMEOUT;

    /** Whether a gRPC client sends calls to it: UNKNOWN, HEALTHY and DEGRADED (A27, A54). */
    public boolean usable() {
      return this == UNKNOWN || this == HEALTHY || this == DEGRADED;
    }
  }

  /** A drop category and its rate in parts per million. */
  public record DropOverload(String category, int perMillion) {
    public DropOverload {
      Objects.requireNonNull(category, "category");
    }
  }
}
