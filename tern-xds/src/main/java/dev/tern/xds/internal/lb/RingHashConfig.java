package dev.tern.xds.internal.lb;

import java.util.Map;

/**
 * {@code ring_hash_experimental}'s config (gRFC A42): {@code {"minRingSize": N, "maxRingSize": M}},
 * 1024 and 4096 when absent. Both are capped at {@link #SIZE_CAP} (4096, as grpc-java caps them by
 * default, however large the cluster's {@code maximum_ring_size}); they must be in 1..8M and min at
 * most max. Immutable; thread-safe.
 */
record RingHashConfig(long minRingSize, long maxRingSize) {
  static final long DEFAULT_MIN_RING_SIZE = 1024;
  static final long DEFAULT_MAX_RING_SIZE = 4096;

  /** The most points a ring gets: bounds each channel's memory and the time to build a ring. */
  static final long SIZE_CAP = 4096;

  /** A42's limit on the ring sizes of a config. */
  static final long MAX_RING_SIZE = 8 * 1024 * 1024;

  static RingHashConfig parse(Map<String, ?> raw) {
    JsonConfig json = new JsonConfig(RingHashProvider.NAME, raw);
    long min = json.wholeNumber("minRingSize", DEFAULT_MIN_RING_SIZE);
    long max = json.wholeNumber("maxRingSize", DEFAULT_MAX_RING_SIZE);
    if (min < 1 || min > MAX_RING_SIZE) {
      throw json.error("minRingSize", "must be in 1.." + MAX_RING_SIZE + ", was " + min);
    }
    if (max < 1 || max > MAX_RING_SIZE) {
      throw json.error("maxRingSize", "must be in 1.." + MAX_RING_SIZE + ", was " + max);
    }
    if (min > max) {
      throw json.error("minRingSize", min + " is greater than maxRingSize " + max);
    }
    return new RingHashConfig(Math.min(min, SIZE_CAP), Math.min(max, SIZE_CAP));
  }
}
