package dev.tern.internal;

import dev.tern.Deadline;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler and a {@link Deadline.Ticker} on one fake clock that moves only when the test calls
 * {@link #forwardTime}; due tasks then run on the test's thread, in time order.
 *
 * <p>Thread-safe (the monitor guards the clock and the queue; tasks run without it).
 */
final class FakeClientClock extends AbstractExecutorService implements ScheduledExecutorService {
  private final PriorityQueue<Task> queue = new PriorityQueue<>();
  private long nowNanos;
  private long sequence;
  private boolean shutdown;

  private final Deadline.Ticker ticker =
      new Deadline.Ticker() {
        @Override
        public long nanoTime() {
          return currentTimeNanos();
        }

        @Override
        public String toString() {
          return "FakeClientClock.ticker";
        }
      };

  Deadline.Ticker ticker() {
    return ticker;
  }

  synchronized long currentTimeNanos() {
    return nowNanos;
  }

  /** A deadline {@code duration} from now on this clock. */
  Deadline deadlineAfter(long duration, TimeUnit unit) {
    return Deadline.after(duration, unit, ticker);
  }

  /** Moves the clock forward, running every task that falls due, in order; returns how many. */
  int forwardTime(long duration, TimeUnit unit) {
    long target;
    synchronized (this) {
      target = nowNanos + unit.toNanos(duration);
    }
    int ran = 0;
    while (true) {
      Task task;
      synchronized (this) {
        Task next = queue.peek();
        if (next == null || next.timeNanos > target) {
          nowNanos = target;
          return ran;
        }
        queue.poll();
        nowNanos = Math.max(nowNanos, next.timeNanos);
        task = next;
      }
      task.runTask();
      ran++;
    }
  }

  /** Runs the tasks due now (e.g. ones submitted with {@link #execute}). */
  int runDueTasks() {
    return forwardTime(0, TimeUnit.NANOSECONDS);
  }

  /** Tasks scheduled and neither run nor cancelled. */
  synchronized List<ScheduledFuture<?>> pendingTasks() {
    List<ScheduledFuture<?>> pending = new ArrayList<>();
    for (Task task : queue) {
      if (!task.isCancelled()) {
        pending.add(task);
      }
    }
    Collections.sort(pending, (a, b) -> a.compareTo(b));
    return pending;
  }

  /** Delay until the earliest pending task, in nanos; -1 if none. */
  synchronized long nextTaskDelayNanos() {
    for (ScheduledFuture<?> task : pendingTasks()) {
      return ((Task) task).timeNanos - nowNanos;
    }
    return -1;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return schedule(Executors.callable(command), delay, unit);
  }

  @Override
  public synchronized <V> ScheduledFuture<V> schedule(
      Callable<V> callable, long delay, TimeUnit unit) {
    if (shutdown) {
      throw new java.util.concurrent.RejectedExecutionException("FakeClientClock is shut down");
    }
    long delayNanos = Math.max(0, unit.toNanos(delay));
    long time = delayNanos > Long.MAX_VALUE - nowNanos ? Long.MAX_VALUE : nowNanos + delayNanos;
    Task task = new Task(callable, time, 0, sequence++);
    queue.add(task);
    @SuppressWarnings("unchecked") // the task returns what the callable returns
    ScheduledFuture<V> typed = (ScheduledFuture<V>) task;
    return typed;
  }

  @Override
  public synchronized ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    Task task =
        new Task(
            Executors.callable(command),
            nowNanos + unit.toNanos(initialDelay),
            unit.toNanos(period),
            sequence++);
    queue.add(task);
    return task;
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return scheduleAtFixedRate(command, initialDelay, delay, unit);
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public synchronized void shutdown() {
    shutdown = true;
  }

  @Override
  public synchronized List<Runnable> shutdownNow() {
    shutdown = true;
    queue.clear();
    return new ArrayList<>();
  }

  @Override
  public synchronized boolean isShutdown() {
    return shutdown;
  }

  @Override
  public synchronized boolean isTerminated() {
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isTerminated();
  }

  private synchronized void reschedule(Task task) {
    task.timeNanos = nowNanos + task.periodNanos;
    queue.add(task);
  }

  private final class Task implements ScheduledFuture<Object> {
    private final Callable<?> callable;
    private final long periodNanos;
    private final long seq;
    private long timeNanos;
    private volatile boolean cancelled;
    private volatile boolean done;
    private Object result;

    Task(Callable<?> callable, long timeNanos, long periodNanos, long seq) {
      this.callable = callable;
      this.timeNanos = timeNanos;
      this.periodNanos = periodNanos;
      this.seq = seq;
    }

    void runTask() {
      if (cancelled) {
        return;
      }
      try {
        result = callable.call();
      } catch (Exception e) {
        throw new AssertionError("scheduled task threw", e);
      }
      if (periodNanos > 0 && !cancelled) {
        reschedule(this);
      } else {
        done = true;
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      synchronized (FakeClientClock.this) {
        return unit.convert(timeNanos - nowNanos, TimeUnit.NANOSECONDS);
      }
    }

    @Override
    public int compareTo(Delayed other) {
      Task that = (Task) other;
      int byTime = Long.compare(timeNanos, that.timeNanos);
      return byTime != 0 ? byTime : Long.compare(seq, that.seq);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (done || cancelled) {
        return false;
      }
      cancelled = true;
      synchronized (FakeClientClock.this) {
        queue.remove(this);
      }
      return true;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done || cancelled;
    }

    @Override
    public Object get() throws ExecutionException {
      if (!done) {
        throw new IllegalStateException("fake task has not run; forward the clock first");
      }
      return result;
    }

    @Override
    public Object get(long timeout, TimeUnit unit) throws ExecutionException {
      return get();
    }
  }
}
