package dev.tern.internal.channel;

import dev.tern.Deadline;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The idle timer of a channel. Calls starting and ending flip it on and off constantly, so it never
 * cancels its scheduled task: {@link #disarm} only clears a flag, and {@link #arm} only moves the
 * target time forward. When the task runs early (the target moved) it reschedules itself for the
 * rest, and when it runs disarmed it does nothing. A busy channel therefore schedules about one
 * task per timeout period instead of one per call.
 *
 * <p>Not thread-safe: every method, and the expiry callback's call to {@link #expiredLocked()},
 * runs under the channel lock.
 */
final class ChannelIdleTimer {
  /** At or beyond this timeout idle mode is off (the timer never runs). */
  static final long DISABLED_AT_NANOS = TimeUnit.DAYS.toNanos(30);

  private final ScheduledExecutorService scheduler;
  private final Deadline.Ticker ticker;
  private final long timeoutNanos;
  private final Runnable onExpiry;

  private boolean armed;
  private long fireAtNanos;
  private ScheduledFuture<?> future;

  /**
   * @param onExpiry runs on the scheduler when the timer may have expired; it must take the channel
   *     lock and ask {@link #expiredLocked()}
   */
  ChannelIdleTimer(
      ScheduledExecutorService scheduler,
      Deadline.Ticker ticker,
      long timeoutNanos,
      Runnable onExpiry) {
    this.scheduler = scheduler;
    this.ticker = ticker;
    this.timeoutNanos = timeoutNanos;
    this.onExpiry = onExpiry;
  }

  /** Starts (or restarts) the countdown: the timer expires {@code timeout} from now. */
  void arm() {
    if (timeoutNanos >= DISABLED_AT_NANOS) {
      return;
    }
    armed = true;
    fireAtNanos = ticker.nanoTime() + timeoutNanos;
    if (future == null) {
      future = scheduler.schedule(onExpiry, timeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** Stops the countdown (the scheduled task stays, and finds nothing to do). */
  void disarm() {
    armed = false;
  }

  /** Stops the countdown and drops the scheduled task, for good (channel shutdown). */
  void cancel() {
    armed = false;
    if (future != null) {
      future.cancel(false);
      future = null;
    }
  }

  /**
   * Called by the expiry callback: returns true if the timer really expired (and disarms it);
   * otherwise reschedules itself if it is still armed for a later time.
   */
  boolean expiredLocked() {
    future = null;
    if (!armed) {
      return false;
    }
    long remaining = fireAtNanos - ticker.nanoTime();
    if (remaining > 0) {
      future = scheduler.schedule(onExpiry, remaining, TimeUnit.NANOSECONDS);
      return false;
    }
    armed = false;
    return true;
  }
}
