package dev.tern.internal.config;

import dev.tern.Status;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A method's {@code retryPolicy} (gRFC A6): how often and how fast a failed call is tried again.
 * Immutable; thread-safe.
 *
 * @param maxAttempts the attempts allowed, counting the first, as configured (>= 2); the channel
 *     caps it
 * @param initialBackoffNanos the upper bound of the random delay before the first retry (> 0)
 * @param maxBackoffNanos the upper bound the backoff grows to (> 0)
 * @param backoffMultiplier how much the bound grows after each attempt (> 0)
 * @param retryableStatusCodes the codes that make a call retried; others end it (non-empty)
 */
public record RetryPolicy(
    int maxAttempts,
    long initialBackoffNanos,
    long maxBackoffNanos,
    double backoffMultiplier,
    Set<Status.Code> retryableStatusCodes) {

  /** Copies {@code retryableStatusCodes} into an unmodifiable set. */
  public RetryPolicy {
    EnumSet<Status.Code> codes = EnumSet.noneOf(Status.Code.class);
    codes.addAll(Objects.requireNonNull(retryableStatusCodes, "retryableStatusCodes"));
    retryableStatusCodes = Collections.unmodifiableSet(codes);
  }
}
