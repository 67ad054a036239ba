package dev.tern.internal.server;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logs a server's executor rejections without a line per call. A bounded executor that refuses work
 * is how a server sheds load, so under overload rejections come by the thousand: the first is
 * logged at WARNING with its exception, later ones at most once per interval as one WARNING with
 * how many calls were cancelled since, and each one at FINE.
 *
 * <p>Thread-safe: rejections come from every transport thread at once; the counters are atomic, and
 * one thread wins each interval's WARNING.
 */
final class ExecutorRejectionLog {
  private static final Logger logger = Logger.getLogger(ExecutorRejectionLog.class.getName());
  static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final LongSupplier nanoClock;

  /** Rejections since the last WARNING, not yet reported. */
  private final AtomicLong unreported = new AtomicLong();

  /** When the next WARNING may be written. */
  private final AtomicLong nextWarningNanos;

  ExecutorRejectionLog() {
    this(System::nanoTime);
  }

  ExecutorRejectionLog(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.nextWarningNanos = new AtomicLong(nanoClock.getAsLong());
  }

  /** The executor refused a task of a call, which is being cancelled UNAVAILABLE. */
  void rejected(RejectedExecutionException e) {
    long now = nanoClock.getAsLong();
    long next = nextWarningNanos.get();
    if (now - next >= 0 && nextWarningNanos.compareAndSet(next, now + INTERVAL_NANOS)) {
      long earlier = unreported.getAndSet(0);
      if (earlier == 0) {
        logger.log(
            Level.WARNING,
            "Server executor rejected a call's task; cancelling the call UNAVAILABLE (further"
                + " rejections are counted and logged at most every 10 s)",
            e);
      } else {
        logger.log(
            Level.WARNING,
            "Server executor rejected {0} more calls'' tasks in the last {1} s; cancelled them"
                + " UNAVAILABLE (latest: {2})",
            new Object[] {
              earlier + 1, TimeUnit.NANOSECONDS.toSeconds(now - next + INTERVAL_NANOS), e
            });
      }
      return;
    }
    unreported.incrementAndGet();
    logger.log(Level.FINE, "Server executor rejected a call's task; cancelling the call", e);
  }
}
