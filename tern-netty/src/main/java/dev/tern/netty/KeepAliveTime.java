package dev.tern.netty;

import java.util.concurrent.TimeUnit;

/**
 * A builder's keepalive time: as configured, raised to the builder's minimum when in effect, or
 * none. Not thread-safe, like the builders that own one.
 */
final class KeepAliveTime {
  /** Times from 1,000 days up disable keepalive: as good as never. */
  private static final long DISABLED_FROM_NANOS = TimeUnit.DAYS.toNanos(1000);

  private long nanos;
  private long minimumNanos;

  /** {@code nanos} is the default ({@code Long.MAX_VALUE} for none). */
  KeepAliveTime(long nanos, long minimumNanos) {
    this.nanos = nanos;
    this.minimumNanos = minimumNanos;
  }

  /** Sets the time, already checked to be positive; 1,000 days or more is none. */
  void set(long time, TimeUnit unit) {
    long requested = unit.toNanos(time);
    nanos = requested >= DISABLED_FROM_NANOS ? Long.MAX_VALUE : requested;
  }

  /** Replaces the minimum: for tests that cannot wait that long. */
  void minimum(long time, TimeUnit unit) {
    minimumNanos = unit.toNanos(time);
  }

  /** The time connections will use: at least the minimum, or {@code Long.MAX_VALUE} for none. */
  long nanosInEffect() {
    return nanos == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(nanos, minimumNanos);
  }
}
