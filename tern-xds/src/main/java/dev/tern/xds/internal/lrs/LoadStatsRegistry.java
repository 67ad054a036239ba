package dev.tern.xds.internal.lrs;

import io.envoyproxy.envoy.config.endpoint.v3.ClusterStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The load statistics of the clusters that report load to one control plane: a cluster_impl
 * balancer whose cluster has {@code lrs_server} takes a {@link Lease} on its cluster's {@link
 * ClusterLoadStats} (balancers of the same cluster in several channels share one), and the client's
 * load-report stream reads them. {@code onActiveChange} runs (with no lock held) when the first
 * lease is taken and when the last is released, so the stream opens only while some cluster asks
 * for load reporting.
 *
 * <p>Thread-safe: the registry is guarded by its lock, taken when a balancer starts or stops
 * reporting and when a report is made, never on a call.
 */
public final class LoadStatsRegistry {
  private final Object lock = new Object();
  private final Runnable onActiveChange;
  private final LongSupplier nanoTime;

  // Guarded by lock.
  private final Map<Key, Entry> entries = new HashMap<>();

  private record Key(String cluster, String edsServiceName) {}

  private static final class Entry {
    final ClusterLoadStats stats;
    int leases; // guarded by the registry's lock

    Entry(ClusterLoadStats stats) {
      this.stats = stats;
    }
  }

  /** A hold on one cluster's stats; release it when the balancer stops. Thread-safe. */
  public final class Lease {
    private final Key key;
    private final Entry entry;
    private final AtomicBoolean released = new AtomicBoolean();

    private Lease(Key key, Entry entry) {
      this.key = key;
      this.entry = entry;
    }

    /** The registry it was taken from. */
    public LoadStatsRegistry registry() {
      return LoadStatsRegistry.this;
    }

    public ClusterLoadStats stats() {
      return entry.stats;
    }

    public boolean isFor(String cluster, String edsServiceName) {
      return key.equals(new Key(cluster, edsServiceName));
    }

    /** Gives the stats back; the last lease of the registry stops reporting. Idempotent. */
    public void release() {
      if (!released.compareAndSet(false, true)) {
        return;
      }
      boolean nowEmpty;
      synchronized (lock) {
        if (--entry.leases == 0) {
          entries.remove(key);
        }
        nowEmpty = entries.isEmpty();
      }
      if (nowEmpty) {
        onActiveChange.run();
      }
    }
  }

  public LoadStatsRegistry(Runnable onActiveChange, LongSupplier nanoTime) {
    this.onActiveChange = Objects.requireNonNull(onActiveChange, "onActiveChange");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /** A lease on the stats of {@code cluster} ({@code edsServiceName} may be null). */
  public Lease acquire(String cluster, String edsServiceName) {
    Key key = new Key(Objects.requireNonNull(cluster, "cluster"), edsServiceName);
    boolean first;
    Lease lease;
    synchronized (lock) {
      first = entries.isEmpty();
      Entry entry =
          entries.computeIfAbsent(
              key,
              k -> new Entry(new ClusterLoadStats(cluster, edsServiceName, nanoTime.getAsLong())));
      entry.leases++;
      lease = new Lease(key, entry);
    }
    if (first) {
      onActiveChange.run();
    }
    return lease;
  }

  /** Whether no cluster reports load now. */
  public boolean isEmpty() {
    synchronized (lock) {
      return entries.isEmpty();
    }
  }

  /**
   * The load of the clusters named (all of them when {@code clusters} is null) since their last
   * report, and starts counting theirs again.
   */
  public List<ClusterStats> report(Set<String> clusters) {
    List<ClusterLoadStats> chosen = new ArrayList<>();
    synchronized (lock) {
      for (Entry entry : entries.values()) {
        if (clusters == null || clusters.contains(entry.stats.cluster())) {
          chosen.add(entry.stats);
        }
      }
    }
    long now = nanoTime.getAsLong();
    List<ClusterStats> stats = new ArrayList<>(chosen.size());
    for (ClusterLoadStats each : chosen) {
      stats.add(each.snapshot(now));
    }
    return stats;
  }
}
