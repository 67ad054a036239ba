package dev.tern.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Deadline;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A deterministic clock and {@link ScheduledExecutorService} for tests: time stands still until the
 * test moves it with {@link #forwardTime}, and tasks run on the thread that moves it, never on a
 * thread of their own.
 *
 * <p>Pass {@link #getTicker()} wherever a {@link Deadline.Ticker} is taken (for example {@link
 * Deadline#after(long, TimeUnit, Deadline.Ticker)}) and the clock itself wherever a scheduler is,
 * so deadlines, timeouts, keepalives and back-offs happen exactly when the test says, with no
 * sleeps and no flaky margins.
 *
 * <ul>
 *   <li>{@link #schedule} runs the task once the clock reaches its due time; {@link
 *       #scheduleAtFixedRate} and {@link #scheduleWithFixedDelay} reschedule it after each run.
 *   <li>{@link #execute} and {@code submit} queue the task at the current time: it runs at the next
 *       {@link #runDueTasks()} or {@link #forwardTime}, not inline.
 *   <li>{@link #forwardTime} steps through the due tasks in order of due time (ties in order of
 *       scheduling), setting the clock to each task's due time while it runs, so a task that
 *       schedules another one within the window sees it run in the same call.
 *   <li>A task that throws: for {@code schedule*} and {@code submit} the exception is kept in the
 *       task's future (as any {@link ScheduledExecutorService} does) and a periodic task stops; for
 *       {@link #execute}, which has no future to keep it, it propagates out of {@link #forwardTime}
 *       or {@link #runDueTasks()} so the test sees it (the tasks not yet run stay pending). With
 *       {@link #setRethrowTaskFailures setRethrowTaskFailures(true)}, every task's exception
 *       propagates that way too, for code under test that schedules a timer and never looks at its
 *       future.
 *   <li>A cancelled task leaves the pending set at once.
 *   <li>{@link #shutdown()} rejects new tasks and cancels periodic ones; one-shot tasks already
 *       scheduled still run when time reaches them. {@link #shutdownNow()} also removes the pending
 *       tasks (without running or cancelling them) and returns them. The clock is terminated once
 *       it is shut down and no task is pending or running.
 *   <li>Blocking methods ({@code get()} on a task's future, {@link #awaitTermination}, {@code
 *       invokeAll}, {@code invokeAny}) wait in real time for another thread to move the clock; from
 *       the only thread that moves it they would wait in vain.
 * </ul>
 *
 * <p>Thread-safe: any thread may schedule, cancel, read the time or move the clock. One lock guards
 * the task queue, the time and the tasks' states; tasks run outside the lock, on the thread that
 * moves the clock, so a task may schedule, cancel, or even move the clock itself. When two threads
 * move the clock at once, each task still runs once, but which thread runs it is not defined.
 */
public final class FakeClock extends AbstractExecutorService implements ScheduledExecutorService {

  private final ReentrantLock lock = new ReentrantLock();
  // Signalled when a task finishes (for get()) and when the clock terminates.
  private final Condition stateChanged = lock.newCondition();

  @GuardedBy("lock")
  private final PriorityQueue<Task<?>> pending = new PriorityQueue<>();

  @GuardedBy("lock")
  private long nowNanos;

  @GuardedBy("lock")
  private long nextSequence;

  @GuardedBy("lock")
  private int running;

  @GuardedBy("lock")
  private boolean shutdown;

  @GuardedBy("lock")
  private boolean rethrowTaskFailures;

  private final Deadline.Ticker ticker =
      new Deadline.Ticker() {
        @Override
        public long nanoTime() {
          return currentTimeNanos();
        }

        @Override
        public String toString() {
          return "FakeClock.ticker";
        }
      };

  /** A clock at time 0. */
  public FakeClock() {
    this(0);
  }

  /**
   * A clock at {@code startNanos}; a value near {@link Long#MAX_VALUE} checks that code under test
   * only compares differences of ticker values, as it must.
   */
  public FakeClock(long startNanos) {
    this.nowNanos = startNanos;
  }

  /**
   * Whether an exception thrown by a task from {@code schedule*} or {@code submit} also propagates
   * out of the {@link #forwardTime} or {@link #runDueTasks()} call that ran it, as one from {@link
   * #execute} always does (default false). The exception is kept in the task's future either way.
   * Turn it on when the code under test schedules timers and ignores their futures, so that a timer
   * that throws fails the test instead of going unnoticed; the tasks not yet run stay pending.
   */
  public void setRethrowTaskFailures(boolean rethrow) {
    lock.lock();
    try {
      rethrowTaskFailures = rethrow;
    } finally {
      lock.unlock();
    }
  }

  /** A ticker that reads this clock's time. */
  public Deadline.Ticker getTicker() {
    return ticker;
  }

  /** The clock's current time, in nanoseconds from an arbitrary origin. */
  public long currentTimeNanos() {
    lock.lock();
    try {
      return nowNanos;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Moves the clock forward by {@code duration}, running every task that falls due on the way.
   *
   * @return the number of task runs (a periodic task counts once per run)
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public int forwardTime(long duration, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (duration < 0) {
      throw new IllegalArgumentException("duration must not be negative: " + duration);
    }
    return forwardNanos(unit.toNanos(duration));
  }

  /** Same as {@code forwardTime(nanos, NANOSECONDS)}. */
  public int forwardNanos(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("nanos must not be negative: " + nanos);
    }
    long target;
    lock.lock();
    try {
      target = nowNanos + nanos;
    } finally {
      lock.unlock();
    }
    return runTasksDueBy(target);
  }

  /** Runs the tasks that are due now without moving the clock; returns how many ran. */
  public int runDueTasks() {
    return runTasksDueBy(currentTimeNanos());
  }

  /** The tasks waiting to run, earliest first (a snapshot). */
  public Collection<ScheduledFuture<?>> getPendingTasks() {
    lock.lock();
    try {
      List<Task<?>> tasks = new ArrayList<>(pending);
      tasks.sort(null);
      return List.copyOf(tasks);
    } finally {
      lock.unlock();
    }
  }

  /** How many tasks are waiting to run. */
  public int numPendingTasks() {
    lock.lock();
    try {
      return pending.size();
    } finally {
      lock.unlock();
    }
  }

  /** How many of the waiting tasks are due now. */
  public int numDueTasks() {
    lock.lock();
    try {
      int due = 0;
      for (Task<?> task : pending) {
        if (task.dueNanos - nowNanos <= 0) {
          due++;
        }
      }
      return due;
    } finally {
      lock.unlock();
    }
  }

  private int runTasksDueBy(long targetNanos) {
    int ran = 0;
    while (true) {
      Task<?> task;
      lock.lock();
      try {
        task = pending.peek();
        if (task == null || task.dueNanos - targetNanos > 0) {
          // Later tasks set the clock themselves; never move it backwards.
          if (targetNanos - nowNanos > 0) {
            nowNanos = targetNanos;
          }
          return ran;
        }
        pending.poll();
        if (task.dueNanos - nowNanos > 0) {
          nowNanos = task.dueNanos;
        }
        task.state = Task.RUNNING;
        running++;
      } finally {
        lock.unlock();
      }
      ran++;
      task.runOnce();
    }
  }

  // ---- ScheduledExecutorService ----

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    return enqueue(new Task<>(callable(command), unit.toNanos(delay), 0, false));
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    Objects.requireNonNull(callable, "callable");
    return enqueue(new Task<>(callable, unit.toNanos(delay), 0, false));
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    if (period <= 0) {
      throw new IllegalArgumentException("period must be positive: " + period);
    }
    return enqueue(
        new Task<>(callable(command), unit.toNanos(initialDelay), unit.toNanos(period), false));
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    if (delay <= 0) {
      throw new IllegalArgumentException("delay must be positive: " + delay);
    }
    return enqueue(
        new Task<>(callable(command), unit.toNanos(initialDelay), -unit.toNanos(delay), false));
  }

  /** Queues {@code command} at the current time; it runs at the next run of due tasks. */
  @Override
  public void execute(Runnable command) {
    Objects.requireNonNull(command, "command");
    enqueue(new Task<>(callable(command), 0, 0, true));
  }

  private static Callable<Object> callable(Runnable command) {
    return () -> {
      command.run();
      return null;
    };
  }

  private <V> Task<V> enqueue(Task<V> task) {
    lock.lock();
    try {
      if (shutdown) {
        throw new RejectedExecutionException("FakeClock is shut down");
      }
      task.dueNanos = nowNanos + Math.max(0, task.initialDelayNanos);
      task.sequence = nextSequence++;
      pending.add(task);
    } finally {
      lock.unlock();
    }
    return task;
  }

  @Override
  public void shutdown() {
    lock.lock();
    try {
      shutdown = true;
      pending.removeIf(
          task -> {
            if (task.periodNanos != 0) {
              task.state = Task.CANCELLED;
              return true;
            }
            return false;
          });
      stateChanged.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public List<Runnable> shutdownNow() {
    lock.lock();
    try {
      shutdown();
      List<Task<?>> tasks = new ArrayList<>(pending);
      tasks.sort(null);
      pending.clear();
      stateChanged.signalAll();
      return new ArrayList<>(tasks);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isShutdown() {
    lock.lock();
    try {
      return shutdown;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isTerminated() {
    lock.lock();
    try {
      return isTerminatedLocked();
    } finally {
      lock.unlock();
    }
  }

  @GuardedBy("lock")
  private boolean isTerminatedLocked() {
    return shutdown && pending.isEmpty() && running == 0;
  }

  /** Waits in real time (for another thread to run the remaining tasks). */
  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long remaining = unit.toNanos(timeout);
    lock.lock();
    try {
      while (!isTerminatedLocked()) {
        if (remaining <= 0) {
          return false;
        }
        remaining = stateChanged.awaitNanos(remaining);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    lock.lock();
    try {
      return "FakeClock{now=" + nowNanos + "ns, pending=" + pending.size() + "}";
    } finally {
      lock.unlock();
    }
  }

  /** One scheduled task and its future. Its state is guarded by the clock's lock. */
  private final class Task<V> implements RunnableScheduledFuture<V> {
    static final int PENDING = 0;
    static final int RUNNING = 1;
    static final int DONE = 2;
    static final int CANCELLED = 3;

    final Callable<V> callable;
    final long initialDelayNanos;
    // 0: one-shot; > 0: fixed rate; < 0: fixed delay (negated).
    final long periodNanos;
    // Tasks from execute() have nobody to report their exception to but the test.
    final boolean propagateFailure;

    // Guarded by the clock's lock. Not @GuardedBy("FakeClock.this.lock"): the clock reads and
    // writes these fields of its queued tasks under its own lock, and Error Prone cannot tell that
    // a task's enclosing clock is that same clock, so every such access would be reported.
    long dueNanos;
    long sequence;
    int state = PENDING;
    // Set when the state is cancelled while running, so a periodic task is not rescheduled.
    boolean cancelledWhileRunning;
    V result;
    Throwable failure;

    Task(Callable<V> callable, long initialDelayNanos, long periodNanos, boolean propagate) {
      this.callable = callable;
      this.initialDelayNanos = initialDelayNanos;
      this.periodNanos = periodNanos;
      this.propagateFailure = propagate;
    }

    /** Runs the task once; called without the lock after the state became RUNNING. */
    void runOnce() {
      V value = null;
      Throwable thrown = null;
      try {
        value = callable.call();
      } catch (Throwable t) { // everything, to keep it in the future as executors do
        thrown = t;
      }
      boolean rethrow;
      lock.lock();
      try {
        running--;
        rethrow = propagateFailure || rethrowTaskFailures;
        boolean rescheduled = false;
        if (cancelledWhileRunning) {
          state = CANCELLED;
        } else if (thrown != null) {
          failure = thrown;
          state = DONE;
        } else if (periodNanos != 0 && !shutdown) {
          dueNanos = periodNanos > 0 ? dueNanos + periodNanos : nowNanos - periodNanos;
          sequence = nextSequence++;
          state = PENDING;
          pending.add(this);
          rescheduled = true;
        } else if (periodNanos != 0) {
          state = CANCELLED;
        } else {
          result = value;
          state = DONE;
        }
        if (!rescheduled) {
          stateChanged.signalAll();
        }
      } finally {
        lock.unlock();
      }
      if (thrown != null && rethrow) {
        if (thrown instanceof RuntimeException) {
          throw (RuntimeException) thrown;
        }
        if (thrown instanceof Error) {
          throw (Error) thrown;
        }
        throw new IllegalStateException("task threw a checked exception", thrown);
      }
    }

    /** Runs the task now, outside the clock's schedule (for tasks handed out by shutdownNow). */
    @Override
    public void run() {
      lock.lock();
      try {
        if (state != PENDING) {
          return;
        }
        pending.remove(this);
        state = RUNNING;
        running++;
      } finally {
        lock.unlock();
      }
      runOnce();
    }

    @Override
    public boolean isPeriodic() {
      return periodNanos != 0;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      lock.lock();
      try {
        return unit.convert(dueNanos - nowNanos, TimeUnit.NANOSECONDS);
      } finally {
        lock.unlock();
      }
    }

    @Override
    public int compareTo(Delayed other) {
      if (other == this) {
        return 0;
      }
      if (other instanceof Task) {
        Task<?> that = (Task<?>) other;
        lock.lock();
        try {
          // Differences from "now", so that ticker values may wrap around.
          int byTime = Long.compare(dueNanos - nowNanos, that.dueNanos - nowNanos);
          return byTime != 0 ? byTime : Long.compare(sequence, that.sequence);
        } finally {
          lock.unlock();
        }
      }
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      lock.lock();
      try {
        if (state == PENDING) {
          pending.remove(this);
          state = CANCELLED;
          stateChanged.signalAll();
          return true;
        }
        if (state == RUNNING && !cancelledWhileRunning) {
          cancelledWhileRunning = true;
          return true;
        }
        return false;
      } finally {
        lock.unlock();
      }
    }

    @Override
    public boolean isCancelled() {
      lock.lock();
      try {
        return state == CANCELLED || cancelledWhileRunning;
      } finally {
        lock.unlock();
      }
    }

    @Override
    public boolean isDone() {
      lock.lock();
      try {
        return state == DONE || state == CANCELLED || cancelledWhileRunning;
      } finally {
        lock.unlock();
      }
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
      lock.lock();
      try {
        while (state == PENDING || (state == RUNNING && !cancelledWhileRunning)) {
          stateChanged.await();
        }
        return resultLocked();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public V get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      long remaining = unit.toNanos(timeout);
      lock.lock();
      try {
        while (state == PENDING || (state == RUNNING && !cancelledWhileRunning)) {
          if (remaining <= 0) {
            throw new TimeoutException("task did not run; move the FakeClock: " + FakeClock.this);
          }
          remaining = stateChanged.awaitNanos(remaining);
        }
        return resultLocked();
      } finally {
        lock.unlock();
      }
    }

    @GuardedBy("FakeClock.this.lock")
    private V resultLocked() throws ExecutionException {
      if (state == CANCELLED || cancelledWhileRunning) {
        throw new CancellationException("task was cancelled");
      }
      if (failure != null) {
        throw new ExecutionException(failure);
      }
      return result;
    }

    @Override
    public String toString() {
      lock.lock();
      try {
        return "FakeClock.Task{due=" + dueNanos + "ns, state=" + state + "}";
      } finally {
        lock.unlock();
      }
    }
  }
}
