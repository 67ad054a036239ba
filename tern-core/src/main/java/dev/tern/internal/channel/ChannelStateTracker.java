package dev.tern.internal.channel;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.ConnectivityState;
import dev.tern.channelz.TraceEvent;
import dev.tern.channelz.TraceLog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A channel's connectivity state as {@code getState} reports it, and the callbacks of {@code
 * notifyWhenStateChanged}, which run on the callback executor once the state moves off the one they
 * were registered for.
 *
 * <p>Thread-safe: one private lock; callbacks are handed to the executor after it is released.
 */
final class ChannelStateTracker {
  private static final Logger logger = Logger.getLogger(ChannelStateTracker.class.getName());

  /** The trace's description of each change, built once: a channel changes state a few times. */
  private static final String[] CHANGED_TO =
      Arrays.stream(ConnectivityState.values())
          .map(state -> "Channel state changed to " + state)
          .toArray(String[]::new);

  private final Executor callbackExecutor;
  private final TraceLog trace;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private ConnectivityState state = ConnectivityState.IDLE;

  @GuardedBy("lock")
  private List<Runnable> waiters = new ArrayList<>();

  /**
   * @param trace where state changes are logged for channelz (under the lock, so in order)
   */
  ChannelStateTracker(Executor callbackExecutor, TraceLog trace) {
    this.callbackExecutor = callbackExecutor;
    this.trace = trace;
  }

  ConnectivityState get() {
    synchronized (lock) {
      return state;
    }
  }

  /** Moves to {@code newState} (SHUTDOWN is final) and runs the callbacks waiting for a change. */
  void set(ConnectivityState newState) {
    List<Runnable> due;
    synchronized (lock) {
      if (state == newState || state == ConnectivityState.SHUTDOWN) {
        return;
      }
      state = newState;
      trace.add(
          CHANGED_TO[newState.ordinal()],
          newState == ConnectivityState.TRANSIENT_FAILURE
              ? TraceEvent.Severity.WARNING
              : TraceEvent.Severity.INFO);
      if (waiters.isEmpty()) {
        return;
      }
      due = waiters;
      waiters = new ArrayList<>();
    }
    for (Runnable callback : due) {
      run(callback);
    }
  }

  /** Runs {@code callback} once the state is not {@code source} (at once if it already is not). */
  void notifyWhenStateChanged(ConnectivityState source, Runnable callback) {
    synchronized (lock) {
      if (state == source) {
        waiters.add(callback);
        return;
      }
    }
    run(callback);
  }

  private void run(Runnable callback) {
    try {
      callbackExecutor.execute(callback);
    } catch (RejectedExecutionException e) {
      logger.log(Level.WARNING, "Executor rejected a state-change callback", e);
    }
  }
}
