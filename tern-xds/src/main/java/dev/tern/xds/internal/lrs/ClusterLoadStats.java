package dev.tern.xds.internal.lrs;

import com.google.protobuf.Duration;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterStats;
import io.envoyproxy.envoy.config.endpoint.v3.UpstreamLocalityStats;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The load of one cluster (and EDS service name) since its last report: a {@link
 * LocalityLoadCounter} per locality called, and the calls dropped per category (EDS's {@code
 * drop_overloads}) or without one (circuit breaking). The maps grow only with the localities and
 * categories the control plane names. Thread-safe: calls touch only concurrent maps and adders;
 * {@link #snapshot} is serialised by the instance's lock, which calls never take.
 */
public final class ClusterLoadStats {
  private final String cluster;
  private final String edsServiceName;
  private final Map<LrsLocality, LocalityLoadCounter> localities = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> drops = new ConcurrentHashMap<>();
  private final LongAdder uncategorizedDrops = new LongAdder();
  private long lastSnapshotNanos; // guarded by this

  ClusterLoadStats(String cluster, String edsServiceName, long nowNanos) {
    this.cluster = Objects.requireNonNull(cluster, "cluster");
    this.edsServiceName = edsServiceName;
    this.lastSnapshotNanos = nowNanos;
  }

  public String cluster() {
    return cluster;
  }

  /** The counter of the calls to {@code locality} (null for none: {@link LrsLocality#EMPTY}). */
  public LocalityLoadCounter locality(LrsLocality locality) {
    LrsLocality key = locality == null ? LrsLocality.EMPTY : locality;
    LocalityLoadCounter counter = localities.get(key);
    return counter != null ? counter : localities.computeIfAbsent(key, LocalityLoadCounter::new);
  }

  /** A call dropped by EDS's drop policy in {@code category}. */
  public void recordDrop(String category) {
    LongAdder adder = drops.get(category);
    if (adder == null) {
      adder = drops.computeIfAbsent(category, c -> new LongAdder());
    }
    adder.increment();
  }

  /** A call dropped without a category (the circuit breaker's {@code max_requests}). */
  public void recordUncategorizedDrop() {
    uncategorizedDrops.increment();
  }

  /**
   * The load since the last snapshot, with the time actually elapsed as its {@code
   * load_report_interval}, and starts counting again.
   */
  synchronized ClusterStats snapshot(long nowNanos) {
    ClusterStats.Builder stats = ClusterStats.newBuilder().setClusterName(cluster);
    if (edsServiceName != null && !edsServiceName.isEmpty()) {
      stats.setClusterServiceName(edsServiceName);
    }
    for (LocalityLoadCounter counter : localities.values()) {
      UpstreamLocalityStats locality = counter.snapshot();
      if (locality != null) {
        stats.addUpstreamLocalityStats(locality);
      }
    }
    long dropped = uncategorizedDrops.sumThenReset();
    for (Map.Entry<String, LongAdder> drop : drops.entrySet()) {
      long count = drop.getValue().sumThenReset();
      if (count > 0) {
        stats.addDroppedRequestsBuilder().setCategory(drop.getKey()).setDroppedCount(count);
        dropped += count;
      }
    }
    long elapsed = Math.max(0, nowNanos - lastSnapshotNanos);
    lastSnapshotNanos = nowNanos;
    return stats
        .setTotalDroppedRequests(dropped)
        .setLoadReportInterval(
            Duration.newBuilder()
                .setSeconds(elapsed / 1_000_000_000L)
                .setNanos((int) (elapsed % 1_000_000_000L)))
        .build();
  }
}
