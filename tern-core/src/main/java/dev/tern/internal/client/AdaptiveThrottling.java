package dev.tern.internal.client;

import dev.tern.Deadline;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * A channel's client-side adaptive throttling (the Google SRE book's "client-side throttling"): the
 * settings every {@link BackendThrottle} of the channel shares, one throttle per subchannel. Off
 * unless the channel's builder asks for it ({@code ManagedChannelBuilder.adaptiveThrottling}).
 *
 * <p>Immutable; thread-safe (given a thread-safe ticker and random source).
 *
 * @param k how many calls the client sends per call the backend accepts before it throttles: a call
 *     is sent with probability {@code 1 - max(0, (requests - k * accepts) / (requests + 1))}
 * @param windowNanos how far back a backend's requests and accepts count
 * @param buckets how many steps the window slides by
 * @param ticker the clock of the window
 * @param random uniform doubles in [0, 1), drawn once per call a backend may throttle
 */
public record AdaptiveThrottling(
    double k, long windowNanos, int buckets, Deadline.Ticker ticker, DoubleSupplier random) {
  /** The SRE book's suggestion: a backend's history over the last two minutes. */
  public static final long DEFAULT_WINDOW_NANOS = TimeUnit.MINUTES.toNanos(2);

  /** Five-second steps: an old count leaves the window within five seconds of its time. */
  public static final int DEFAULT_BUCKETS = 24;

  /**
   * @throws IllegalArgumentException if {@code k} is not a finite number of at least 1, or the
   *     window is shorter than its buckets
   */
  public AdaptiveThrottling {
    checkK(k);
    if (buckets < 1 || windowNanos < buckets) {
      throw new IllegalArgumentException(
          "windowNanos must be >= buckets >= 1, were " + windowNanos + " and " + buckets);
    }
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(random, "random");
  }

  /**
   * Returns {@code k} if it is a valid multiplier: finite and at least 1 (below 1 the client would
   * throttle a backend that accepts every call).
   *
   * @throws IllegalArgumentException naming {@code k} otherwise
   */
  public static double checkK(double k) {
    if (!(k >= 1) || Double.isInfinite(k)) {
      throw new IllegalArgumentException("k must be a finite number >= 1, was " + k);
    }
    return k;
  }

  /** A throttle for one backend, named {@code backend} in the statuses of the calls it refuses. */
  public BackendThrottle newBackend(String backend) {
    return new BackendThrottle(this, backend);
  }
}
