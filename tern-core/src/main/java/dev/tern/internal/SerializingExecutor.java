package dev.tern.internal;

import dev.tern.spi.HandOff;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs submitted tasks one at a time, in submission order, on a delegate executor. Two tasks never
 * run concurrently, and each task happens-before the next, so state touched only by these tasks
 * needs no further synchronization. This is how a call's callbacks reach the application executor
 * without ever overlapping.
 *
 * <p>A burst of submissions costs one dispatch to the delegate: the first submission schedules a
 * drain, later ones join the queue and are run by that same drain. The queue is an array deque
 * under the executor's own monitor, held only to add or take a task, never while one runs: every
 * call has one of these, and a linked queue cost an object per task.
 *
 * <p>A task that throws a {@link RuntimeException} is logged and the next task still runs.
 *
 * <p>Made with a {@link HandOff}, it gives its drains to the delegate through it (a server stream's
 * transport may then hand them over after its current batch of reads) and {@link #execute} never
 * throws {@link RejectedExecutionException}: when the delegate refuses a drain, every task queued
 * for it is taken out, none runs, and they go to the {@link RejectionHandler}.
 *
 * <p>Thread-safe: {@link #execute} and {@link #setExecutor} may be called from any thread,
 * including from inside a task (the task is then queued behind the running one, never run
 * re-entrantly).
 */
public final class SerializingExecutor implements Executor {

  private static final Logger logger = Logger.getLogger(SerializingExecutor.class.getName());

  /** The tasks waiting; guarded by this. A call's callbacks come a few at a time. */
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>(4);

  /**
   * True from the moment a drain is handed to the delegate until that drain has stopped; guarded by
   * this.
   */
  private boolean drainScheduled;

  /** Reused for every dispatch, so a burst allocates nothing. */
  private final Drain drain = new Drain();

  /**
   * How drains reach the delegate, or null: directly, and a refusal is thrown to the caller. Not
   * volatile: {@link #setHandOff} comes before the stream whose events it serves starts (which
   * publishes it), and a thread that still saw the one before would hand over through another
   * hand-off, just as correct.
   */
  private HandOff handOff;

  /** Told of a refused drain when {@link #handOff} is set. */
  private final RejectionHandler onRejected;

  private volatile Executor delegate;

  /** What becomes of the tasks of a drain the delegate refused, with a {@link HandOff}. */
  @FunctionalInterface
  public interface RejectionHandler {
    /**
     * The delegate refused the drain that would have run {@code dropped}, in submission order; none
     * of them will run. Called on the thread the refusal reached (see {@link HandOff#execute}).
     */
    void rejected(RejectedExecutionException e, List<Runnable> dropped);
  }

  /** Creates an executor that runs its tasks, one at a time, on {@code delegate}. */
  public SerializingExecutor(Executor delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.onRejected = null;
  }

  /**
   * Creates an executor that runs its tasks, one at a time, on {@code delegate}, handing each drain
   * over through {@code handOff}; a refused drain's tasks go to {@code onRejected}.
   */
  public SerializingExecutor(Executor delegate, HandOff handOff, RejectionHandler onRejected) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.handOff = Objects.requireNonNull(handOff, "handOff");
    this.onRejected = Objects.requireNonNull(onRejected, "onRejected");
  }

  /**
   * Replaces the delegate. Takes effect for the next dispatch; a drain already running finishes on
   * the old delegate. Ordering and exclusion still hold across the switch.
   */
  public void setExecutor(Executor delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * Replaces the hand-off of an executor made with one: a client call's executor exists before its
   * stream, whose transport says how tasks are best handed over. Takes effect for the next
   * dispatch; call it before the events it hands over can arrive on another thread.
   *
   * @throws IllegalStateException if this executor was made without a hand-off
   */
  public void setHandOff(HandOff handOff) {
    Objects.requireNonNull(handOff, "handOff");
    if (this.handOff == null) {
      throw new IllegalStateException("made without a hand-off: refusals are thrown to the caller");
    }
    this.handOff = handOff;
  }

  /**
   * Queues {@code task} to run after every previously submitted task.
   *
   * @throws RejectedExecutionException without a {@link HandOff}, if the delegate rejects the drain
   *     this submission had to schedule; {@code task} is then discarded and the executor stays
   *     usable, so a later submission schedules a drain again (and also runs tasks other threads
   *     queued meanwhile)
   */
  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    synchronized (this) {
      tasks.add(task);
      if (drainScheduled) {
        return;
      }
      drainScheduled = true;
    }
    HandOff through = handOff;
    if (through != null) {
      through.execute(delegate, drain);
      return;
    }
    try {
      delegate.execute(drain);
    } catch (RuntimeException | Error e) {
      // Nothing will drain the queue: allow the next submission to try again, and take back this
      // task so the caller, who sees the exception, can be sure it will not run later.
      synchronized (this) {
        tasks.removeLastOccurrence(task);
        drainScheduled = false;
      }
      throw e;
    }
  }

  /** The delegate refused the scheduled drain (with a {@link HandOff}): nothing queued will run. */
  private void drainRejected(RejectedExecutionException e) {
    List<Runnable> dropped;
    synchronized (this) {
      dropped = new ArrayList<>(tasks);
      tasks.clear();
      drainScheduled = false;
    }
    onRejected.rejected(e, dropped);
  }

  /** The drain handed to the delegate; one per executor. */
  private final class Drain implements HandOff.Task {
    @Override
    public void run() {
      drainQueue();
    }

    @Override
    public void rejected(RejectedExecutionException e) {
      drainRejected(e);
    }
  }

  private void drainQueue() {
    while (true) {
      Runnable task;
      synchronized (this) {
        task = tasks.poll();
        if (task == null) {
          drainScheduled = false;
          return;
        }
      }
      try {
        task.run();
      } catch (RuntimeException e) {
        logger.log(Level.SEVERE, "Exception while executing runnable " + task, e);
      } catch (Error e) {
        // An Error is not swallowed like a RuntimeException, but the tasks behind the failed one
        // must not wait for the next submission: hand them to a fresh drain.
        redispatchAfter(e);
        throw e;
      }
    }
  }

  /** After a task threw {@code e}: the rest goes to a new drain, or the flag is cleared. */
  private void redispatchAfter(Error e) {
    synchronized (this) {
      if (tasks.isEmpty()) {
        drainScheduled = false;
        return;
      }
    }
    try {
      delegate.execute(drain);
    } catch (RuntimeException rejected) {
      synchronized (this) {
        drainScheduled = false;
      }
      e.addSuppressed(rejected);
    }
  }
}
