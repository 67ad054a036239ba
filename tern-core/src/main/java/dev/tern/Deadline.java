package dev.tern;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An absolute point in time, measured by a {@link Ticker}, after which an operation should give up.
 *
 * <p>Deadlines are created relative to "now" ({@link #after}) and compare against each other
 * without overflow even when the ticker's raw values wrap around. Durations are saturated to about
 * 146 years in either direction, so {@code Deadline.after(Long.MAX_VALUE, DAYS)} is a deadline far
 * in the future rather than an overflowed one in the past.
 *
 * <p>Deadlines from different tickers cannot be compared: {@link #compareTo}, {@link #isBefore} and
 * {@link #minimum} throw {@link IllegalArgumentException} for them.
 *
 * <p>Immutable; thread-safe. (The cached "expired" flag only ever flips from false to true.)
 */
public final class Deadline implements Comparable<Deadline> {

  /**
   * Largest distance from "now" a deadline may have, in either direction. Half of the {@code long}
   * range, so that the difference of any two deadlines made at around the same time never
   * overflows.
   */
  static final long MAX_OFFSET_NANOS = Long.MAX_VALUE / 2;

  private static final Ticker SYSTEM_TICKER = new SystemTicker();

  private final Ticker ticker;
  private final long deadlineNanos;
  // Set once the deadline has been observed to pass; saves reading the ticker afterwards.
  private volatile boolean expired;

  private Deadline(Ticker ticker, long now, long offsetNanos) {
    this.ticker = ticker;
    // Wrapping addition is intended: only differences of ticker values are meaningful.
    this.deadlineNanos = now + offsetNanos;
    this.expired = offsetNanos <= 0;
  }

  /**
   * Returns a deadline {@code duration} from now according to the system ticker ({@link
   * System#nanoTime()}). Negative durations give a deadline that has already expired.
   */
  public static Deadline after(long duration, TimeUnit unit) {
    return after(duration, unit, SYSTEM_TICKER);
  }

  /**
   * Returns a deadline {@code duration} from now according to {@code ticker}. Tests use this with a
   * fake ticker; production code should use {@link #after(long, TimeUnit)}.
   */
  public static Deadline after(long duration, TimeUnit unit, Ticker ticker) {
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(ticker, "ticker");
    return new Deadline(ticker, ticker.nanoTime(), saturate(unit.toNanos(duration)));
  }

  /** Returns the ticker backed by {@link System#nanoTime()} that deadlines use by default. */
  public static Ticker getSystemTicker() {
    return SYSTEM_TICKER;
  }

  /** Returns whether the deadline has passed (the remaining time is zero or negative). */
  public boolean isExpired() {
    if (expired) {
      return true;
    }
    if (deadlineNanos - ticker.nanoTime() <= 0) {
      expired = true;
      return true;
    }
    return false;
  }

  /**
   * Returns the time left until the deadline in {@code unit}, truncated toward zero. Negative once
   * the deadline has passed.
   */
  public long timeRemaining(TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    long remainingNanos = deadlineNanos - ticker.nanoTime();
    if (remainingNanos <= 0) {
      expired = true;
    }
    return unit.convert(remainingNanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Returns whether this deadline comes strictly before {@code other}.
   *
   * @throws IllegalArgumentException if the deadlines use different tickers
   */
  public boolean isBefore(Deadline other) {
    return compareTo(other) < 0;
  }

  /**
   * Returns the earlier of this deadline and {@code other} ({@code this} when they are equal).
   *
   * @throws IllegalArgumentException if the deadlines use different tickers
   */
  public Deadline minimum(Deadline other) {
    return other.isBefore(this) ? other : this;
  }

  /**
   * Returns a deadline moved by {@code offset} (later if positive, earlier if negative), using the
   * same ticker. The result's distance from now is saturated like {@link #after}.
   */
  public Deadline offset(long offset, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (offset == 0) {
      return this;
    }
    long now = ticker.nanoTime();
    long remainingNanos = deadlineNanos - now;
    long shiftedRemaining = saturate(saturatedAdd(remainingNanos, unit.toNanos(offset)));
    return new Deadline(ticker, now, shiftedRemaining);
  }

  /**
   * Schedules {@code task} on {@code scheduler} to run when the deadline expires (immediately if it
   * already has). The delay is computed from the ticker now; the scheduler measures it with its own
   * clock, so a fake ticker only controls the delay, not the firing.
   *
   * @return the scheduled future; cancel it to stop the task
   */
  public ScheduledFuture<?> runOnExpiration(Runnable task, ScheduledExecutorService scheduler) {
    Objects.requireNonNull(task, "task");
    Objects.requireNonNull(scheduler, "scheduler");
    return scheduler.schedule(task, deadlineNanos - ticker.nanoTime(), TimeUnit.NANOSECONDS);
  }

  /**
   * Orders deadlines by when they expire.
   *
   * @throws IllegalArgumentException if the deadlines use different tickers
   */
  @Override
  public int compareTo(Deadline other) {
    Objects.requireNonNull(other, "other");
    if (ticker != other.ticker) {
      throw new IllegalArgumentException(
          "cannot compare deadlines from different tickers ("
              + ticker
              + " and "
              + other.ticker
              + "); use one ticker for all deadlines in a test");
    }
    long diff = deadlineNanos - other.deadlineNanos;
    return Long.signum(diff);
  }

  /** Deadlines are equal when they use the same ticker and expire at the same tick. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Deadline)) {
      return false;
    }
    Deadline that = (Deadline) o;
    return ticker == that.ticker && deadlineNanos == that.deadlineNanos;
  }

  @Override
  public int hashCode() {
    return Objects.hash(ticker, deadlineNanos);
  }

  /**
   * Describes the time remaining, e.g. {@code "2.999999878s from now"} (negative once expired),
   * followed by the ticker when it is not the system ticker.
   */
  @Override
  public String toString() {
    long remaining = timeRemaining(TimeUnit.NANOSECONDS);
    long magnitude = Math.abs(remaining);
    long seconds = magnitude / 1_000_000_000L;
    long nanos = magnitude % 1_000_000_000L;
    StringBuilder sb = new StringBuilder(32);
    if (remaining < 0) {
      sb.append('-');
    }
    sb.append(seconds);
    if (nanos != 0) {
      String digits = Long.toString(nanos);
      sb.append('.');
      for (int i = digits.length(); i < 9; i++) {
        sb.append('0');
      }
      sb.append(digits);
    }
    sb.append("s from now");
    if (ticker != SYSTEM_TICKER) {
      sb.append(" (ticker=").append(ticker).append(')');
    }
    return sb.toString();
  }

  private static long saturate(long nanos) {
    if (nanos > MAX_OFFSET_NANOS) {
      return MAX_OFFSET_NANOS;
    }
    if (nanos < -MAX_OFFSET_NANOS) {
      return -MAX_OFFSET_NANOS;
    }
    return nanos;
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    // Overflow happened iff both operands have the same sign and the sum's sign differs.
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }

  /**
   * A source of monotonic nanosecond time. Only differences between values are meaningful. Tests
   * substitute a fake ticker to control time; implementations must be thread-safe.
   */
  public abstract static class Ticker {
    /** For subclasses. */
    protected Ticker() {}

    /** Returns the current time in nanoseconds, on an arbitrary but fixed origin. */
    public abstract long nanoTime();
  }

  private static final class SystemTicker extends Ticker {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public String toString() {
      return "SystemTicker";
    }
  }
}
