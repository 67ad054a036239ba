package dev.tern.internal;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs submitted tasks one at a time, in submission order, on a delegate executor. Two tasks never
 * run concurrently, and each task happens-before the next, so state touched only by these tasks
 * needs no further synchronization. This is how a call's callbacks reach the application executor
 * without ever overlapping.
 *
 * <p>A burst of submissions costs one dispatch to the delegate: the first submission schedules a
 * drain, later ones join the queue and are run by that same drain. No lock is held while tasks run;
 * the queue is lock-free and a single atomic flag says whether a drain is scheduled.
 *
 * <p>A task that throws a {@link RuntimeException} is logged and the next task still runs.
 *
 * <p>Thread-safe: {@link #execute} and {@link #setExecutor} may be called from any thread,
 * including from inside a task (the task is then queued behind the running one, never run
 * re-entrantly).
 */
public final class SerializingExecutor implements Executor {

  private static final Logger logger = Logger.getLogger(SerializingExecutor.class.getName());

  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

  /** True from the moment a drain is handed to the delegate until that drain has stopped. */
  private final AtomicBoolean drainScheduled = new AtomicBoolean();

  /** Reused for every dispatch, so a burst allocates nothing besides its queue nodes. */
  private final Runnable drain = this::drainQueue;

  private volatile Executor delegate;

  /** Creates an executor that runs its tasks, one at a time, on {@code delegate}. */
  public SerializingExecutor(Executor delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * Replaces the delegate. Takes effect for the next dispatch; a drain already running finishes on
   * the old delegate. Ordering and exclusion still hold across the switch.
   */
  public void setExecutor(Executor delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * Queues {@code task} to run after every previously submitted task.
   *
   * @throws RejectedExecutionException if the delegate rejects the drain this submission had to
   *     schedule; {@code task} is then discarded and the executor stays usable, so a later
   *     submission schedules a drain again (and also runs tasks other threads queued meanwhile)
   */
  @Override
  public void execute(Runnable task) {
    tasks.add(Objects.requireNonNull(task, "task"));
    if (drainScheduled.compareAndSet(false, true)) {
      try {
        delegate.execute(drain);
      } catch (RuntimeException | Error e) {
        // Nothing will drain the queue: allow the next submission to try again, and take back
        // this task so the caller, who sees the exception, can be sure it will not run later.
        tasks.remove(task);
        drainScheduled.set(false);
        throw e;
      }
    }
  }

  private void drainQueue() {
    try {
      do {
        try {
          Runnable task;
          while ((task = tasks.poll()) != null) {
            try {
              task.run();
            } catch (RuntimeException e) {
              logger.log(Level.SEVERE, "Exception while executing runnable " + task, e);
            }
          }
        } finally {
          drainScheduled.set(false);
        }
        // A task may have been queued after the last poll but before the flag was cleared: its
        // submitter saw the flag set and did not dispatch, so this drain must pick it up.
      } while (!tasks.isEmpty() && drainScheduled.compareAndSet(false, true));
    } catch (Error e) {
      // An Error is not swallowed like a RuntimeException, but the tasks behind the failed one
      // must not wait for the next submission: hand them to a fresh drain.
      if (!tasks.isEmpty() && drainScheduled.compareAndSet(false, true)) {
        try {
          delegate.execute(drain);
        } catch (RuntimeException rejected) {
          drainScheduled.set(false);
          e.addSuppressed(rejected);
        }
      }
      throw e;
    }
  }
}
