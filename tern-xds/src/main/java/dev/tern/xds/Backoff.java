package dev.tern.xds;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential back-off with jitter for reconnecting the ADS stream: the first delay {@code
 * initial}, each next one {@code multiplier} times longer up to {@code max}, each drawn within
 * ±20%. Not thread-safe: used in the client's synchronization context only.
 */
final class Backoff {
  private static final double MULTIPLIER = 1.6;
  private static final double JITTER = 0.2;

  private final long initialNanos;
  private final long maxNanos;
  private long nextNanos;

  Backoff(Duration initial, Duration max) {
    this.initialNanos = initial.toNanos();
    this.maxNanos = max.toNanos();
    this.nextNanos = initialNanos;
  }

  /** The delay before the next attempt. */
  long nextDelayNanos() {
    long current = nextNanos;
    nextNanos = (long) Math.min(current * MULTIPLIER, maxNanos);
    double factor = 1 + JITTER * (2 * ThreadLocalRandom.current().nextDouble() - 1);
    return (long) (current * factor);
  }

  /** Starts again from the initial delay (after a stream that received a response). */
  void reset() {
    nextNanos = initialNanos;
  }
}
