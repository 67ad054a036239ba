package dev.tern.xds.internal.resolver;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The randomness of routing (runtime fractions, weighted clusters), injectable so that tests can
 * seed it. Implementations must be thread-safe: the selector calls it on the threads that start
 * calls.
 */
@FunctionalInterface
public interface XdsRandom {
  /** The process's default: {@link ThreadLocalRandom}. */
  XdsRandom DEFAULT = bound -> ThreadLocalRandom.current().nextLong(bound);

  /** A uniformly chosen value in {@code [0, bound)}; {@code bound} is positive. */
  long nextLong(long bound);
}
