package dev.tern.channelz;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts calls as they start and end: what a channel or server reports as {@link CallStats}. Each
 * call costs one {@link LongAdder} increment at start and one at the end (adders do not contend
 * between threads the way one shared atomic would), plus one {@link System#currentTimeMillis()}
 * read at start; the last-started time is written only when the millisecond changed, so busy
 * threads do not keep writing the same cache line.
 *
 * <p>Thread-safe. A snapshot taken while calls run may see a call started but not yet ended, or
 * (briefly) the end of a call before the update of {@code lastStarted} of a later one; every count
 * is exact once the calls it covers have ended.
 */
public final class CallCounter {
  private static final VarHandle LAST_STARTED;

  static {
    try {
      LAST_STARTED =
          MethodHandles.lookup().findVarHandle(CallCounter.class, "lastStartedMillis", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final LongAdder started = new LongAdder();
  private final LongAdder succeeded = new LongAdder();
  private final LongAdder failed = new LongAdder();

  /** Epoch millis of the last start, 0 if none; accessed in opaque mode (atomic, no fences). */
  @SuppressWarnings("unused") // through LAST_STARTED
  private long lastStartedMillis;

  /** A counter at zero. */
  public CallCounter() {}

  /** A call started. */
  public void callStarted() {
    started.increment();
    long now = System.currentTimeMillis();
    if ((long) LAST_STARTED.getOpaque(this) != now) {
      LAST_STARTED.setOpaque(this, now);
    }
  }

  /** A call ended: OK ({@code ok}) or not. */
  public void callEnded(boolean ok) {
    (ok ? succeeded : failed).increment();
  }

  /** The counts so far. */
  public CallStats snapshot() {
    long last = (long) LAST_STARTED.getOpaque(this);
    // Ends before starts: a call counted as ended is then always counted as started too.
    long ok = succeeded.sum();
    long notOk = failed.sum();
    return new CallStats(started.sum(), ok, notOk, last == 0 ? null : Instant.ofEpochMilli(last));
  }
}
