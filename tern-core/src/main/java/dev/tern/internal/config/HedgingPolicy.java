package dev.tern.internal.config;

import dev.tern.Status;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A method's {@code hedgingPolicy} (gRFC A6): copies of a call sent one after another without
 * waiting for the earlier ones to fail. Immutable; thread-safe.
 *
 * @param maxAttempts the copies allowed, counting the first, as configured (>= 2); the channel caps
 *     it
 * @param hedgingDelayNanos the wait before sending each further copy (>= 0; 0 sends all at once)
 * @param nonFatalStatusCodes the codes that let the other copies go on; any other code ends the
 *     call (may be empty)
 */
public record HedgingPolicy(
    int maxAttempts, long hedgingDelayNanos, Set<Status.Code> nonFatalStatusCodes) {

  /** Copies {@code nonFatalStatusCodes} into an unmodifiable set. */
  public HedgingPolicy {
    EnumSet<Status.Code> codes = EnumSet.noneOf(Status.Code.class);
    codes.addAll(Objects.requireNonNull(nonFatalStatusCodes, "nonFatalStatusCodes"));
    nonFatalStatusCodes = Collections.unmodifiableSet(codes);
  }
}
