package dev.tern.xds.internal.lb;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process-wide counts of calls in flight per cluster for circuit breaking (gRFC A32): every
 * cluster_impl balancer, in any channel, that serves the same cluster name and EDS service name
 * shares one counter, so {@code max_requests} limits the process, not each channel. A counter lives
 * while some balancer holds a {@link Lease} on it; when the last lease is released the entry is
 * dropped, so clusters nobody uses any more take no memory. (Calls still open on a dropped counter
 * keep counting on it and are not seen by a counter created later for the same key.)
 *
 * <p>Thread-safe: the registry is guarded by its own lock, taken only when a balancer starts,
 * changes cluster or shuts down; calls touch only the counter's atomic.
 */
final class ClusterCallCounters {
  private static final Object LOCK = new Object();

  // Guarded by LOCK.
  private static final Map<Key, Entry> COUNTERS = new HashMap<>();

  private ClusterCallCounters() {}

  private record Key(String cluster, String edsServiceName) {}

  private static final class Entry {
    final AtomicLong inFlight = new AtomicLong();
    int leases; // guarded by LOCK
  }

  /**
   * A hold on the counter of one cluster; release it once the balancer no longer uses it.
   * Thread-safe; releasing twice has no further effect.
   */
  static final class Lease {
    private final Key key;
    private final Entry entry;
    private final AtomicBoolean released = new AtomicBoolean();

    private Lease(Key key, Entry entry) {
      this.key = key;
      this.entry = entry;
    }

    /** The shared count of this cluster's calls in flight. */
    AtomicLong inFlight() {
      return entry.inFlight;
    }

    boolean isFor(String cluster, String edsServiceName) {
      return key.equals(new Key(cluster, edsServiceName));
    }

    void release() {
      if (!released.compareAndSet(false, true)) {
        return;
      }
      synchronized (LOCK) {
        if (--entry.leases == 0) {
          COUNTERS.remove(key);
        }
      }
    }
  }

  /** A lease on the counter of {@code cluster} (and {@code edsServiceName}, which may be null). */
  static Lease acquire(String cluster, String edsServiceName) {
    Key key = new Key(Objects.requireNonNull(cluster, "cluster"), edsServiceName);
    synchronized (LOCK) {
      Entry entry = COUNTERS.computeIfAbsent(key, k -> new Entry());
      entry.leases++;
      return new Lease(key, entry);
    }
  }

  /** Whether a counter for this cluster is held by anyone (for tests). */
  static boolean isTracked(String cluster, String edsServiceName) {
    synchronized (LOCK) {
      return COUNTERS.containsKey(new Key(cluster, edsServiceName));
    }
  }
}
