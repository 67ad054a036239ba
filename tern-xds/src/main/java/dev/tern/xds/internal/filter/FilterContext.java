package dev.tern.xds.internal.filter;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongUnaryOperator;

/**
 * What a channel lends its filters' interceptors: its scheduler (fault delays) and the randomness
 * of their decisions ({@code random.applyAsLong(bound)} is uniform in {@code [0, bound)}),
 * injectable for tests. Both must be thread-safe.
 */
public record FilterContext(ScheduledExecutorService scheduler, LongUnaryOperator random) {
  public FilterContext {
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(random, "random");
  }
}
