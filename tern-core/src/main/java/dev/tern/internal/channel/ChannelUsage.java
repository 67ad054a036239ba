package dev.tern.internal.channel;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Deadline;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Whether a channel is in use (a transport has calls open, or calls wait for a pick), and its idle
 * timer: armed while the channel is active and unused, it tells the channel to go idle once the
 * timeout passes. Calls starting and ending flip the use constantly, so this is a plain lock and
 * counters, and the timer never reschedules per call (see {@link ChannelIdleTimer}).
 *
 * <p>Thread-safe: one private lock, under which nothing calls out; the expiry callback runs without
 * it.
 */
final class ChannelUsage {
  /** One transport's in-use flag; guarded by the usage's lock. */
  final class TransportUse {
    @GuardedBy("ChannelUsage.this.lock")
    private boolean inUse;

    private TransportUse() {}

    /** Records whether this transport has calls open. */
    void set(boolean inUse) {
      synchronized (lock) {
        if (this.inUse == inUse) {
          return;
        }
        this.inUse = inUse;
        transportsInUse += inUse ? 1 : -1;
        updateLocked();
      }
    }

    /** The transport terminated: it is no longer in use. */
    void release() {
      set(false);
    }
  }

  /** A flag for one new transport. */
  TransportUse newTransportUse() {
    return new TransportUse();
  }

  private final Object lock = new Object();
  private final Runnable onIdle;

  @GuardedBy("lock")
  private final ChannelIdleTimer timer;

  @GuardedBy("lock")
  private int transportsInUse;

  @GuardedBy("lock")
  private int queuedCalls;

  @GuardedBy("lock")
  private boolean active;

  /**
   * @param onIdle runs (on the scheduler's thread, without locks) when the timer expires
   */
  ChannelUsage(
      ScheduledExecutorService scheduler,
      Deadline.Ticker ticker,
      long idleTimeoutNanos,
      Runnable onIdle) {
    this.onIdle = onIdle;
    this.timer = new ChannelIdleTimer(scheduler, ticker, idleTimeoutNanos, this::timerFired);
  }

  /** Records calls that started ({@code delta > 0}) or stopped waiting for a pick. */
  void callsQueued(int delta) {
    synchronized (lock) {
      queuedCalls += delta;
      updateLocked();
    }
  }

  /** The channel left idle mode (it has a resolver and a balancer): the timer may run. */
  void activated() {
    synchronized (lock) {
      active = true;
      updateLocked();
    }
  }

  /** The channel went idle or shut down: the timer stops. */
  void deactivated() {
    synchronized (lock) {
      active = false;
      timer.disarm();
    }
  }

  /** The channel shut down: the timer's task is dropped for good. */
  void cancel() {
    synchronized (lock) {
      active = false;
      timer.cancel();
    }
  }

  @GuardedBy("lock")
  private void updateLocked() {
    if (active && transportsInUse == 0 && queuedCalls == 0) {
      timer.arm();
    } else {
      timer.disarm();
    }
  }

  private void timerFired() {
    boolean expired;
    synchronized (lock) {
      expired = timer.expiredLocked() && active && transportsInUse == 0 && queuedCalls == 0;
    }
    if (expired) {
      onIdle.run();
    }
  }
}
