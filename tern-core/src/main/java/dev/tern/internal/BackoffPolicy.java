package dev.tern.internal;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * Reconnect delays that grow exponentially: 1 s, then times 1.6 per failed attempt, capped at 120
 * s, each randomized by up to 20% either way so that many clients do not reconnect in lock step
 * (the gRPC connection back-off recipe).
 *
 * <p>Not thread-safe: the channel uses it under its lock.
 */
public final class BackoffPolicy {
  static final long INITIAL_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
  static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(120);
  static final double MULTIPLIER = 1.6;
  static final double JITTER = 0.2;

  private final DoubleSupplier random;
  private long nextNanos = INITIAL_BACKOFF_NANOS;

  /**
   * @param random uniform doubles in [0, 1); 0.5 means no jitter
   */
  public BackoffPolicy(DoubleSupplier random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  /** Returns the delay before the next attempt and grows the one after it. */
  public long nextBackoffNanos() {
    long current = nextNanos;
    nextNanos = Math.min((long) (current * MULTIPLIER), MAX_BACKOFF_NANOS);
    double spread = JITTER * (2 * random.getAsDouble() - 1);
    return current + (long) (current * spread);
  }

  /** Starts over at the initial delay (after a successful connection). */
  public void reset() {
    nextNanos = INITIAL_BACKOFF_NANOS;
  }
}
