package dev.tern.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} on a fake clock: tasks run only when a test calls {@link
 * #forwardTime}, on the test's thread, in order of due time. {@link #execute} runs at once.
 *
 * <p>Thread-safe (synchronized), though tests drive it from one thread.
 */
public final class FakeServerScheduler extends AbstractExecutorService
    implements ScheduledExecutorService {
  private final List<Task<?>> tasks = new ArrayList<>();
  private long nowNanos;
  private long sequence;
  private boolean shutdown;

  /** Advances the clock by {@code duration}, running every task that falls due, in order. */
  public void forwardTime(long duration, TimeUnit unit) {
    long target;
    synchronized (this) {
      target = nowNanos + unit.toNanos(duration);
    }
    while (true) {
      Task<?> next;
      synchronized (this) {
        next = null;
        for (Task<?> task : tasks) {
          if (task.dueNanos <= target && (next == null || task.compareTo(next) < 0)) {
            next = task;
          }
        }
        if (next == null) {
          nowNanos = target;
          return;
        }
        tasks.remove(next);
        nowNanos = Math.max(nowNanos, next.dueNanos);
      }
      next.run();
    }
  }

  /** The tasks that are scheduled and neither run nor cancelled. */
  public synchronized List<ScheduledFuture<?>> pendingTasks() {
    return Collections.unmodifiableList(new ArrayList<>(tasks));
  }

  /** The delay of the single pending task, in {@code unit}. */
  public synchronized long onlyPendingDelay(TimeUnit unit) {
    if (tasks.size() != 1) {
      throw new AssertionError("expected one pending task, found " + tasks.size());
    }
    return tasks.get(0).getDelay(unit);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    return add(
        () -> {
          command.run();
          return null;
        },
        delay,
        unit);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return add(Objects.requireNonNull(callable, "callable"), delay, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return scheduleWithFixedDelay(command, initialDelay, period, unit);
  }

  /** Repeats {@code command} every {@code delay} of fake time until cancelled. */
  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    if (delay <= 0) {
      throw new IllegalArgumentException("delay must be > 0: " + delay);
    }
    Task<?> task =
        add(
            () -> {
              command.run();
              return null;
            },
            initialDelay,
            unit);
    synchronized (this) {
      task.periodNanos = unit.toNanos(delay);
    }
    return task;
  }

  @Override
  public void execute(Runnable command) {
    command.run();
  }

  @Override
  public synchronized void shutdown() {
    shutdown = true;
  }

  @Override
  public synchronized List<Runnable> shutdownNow() {
    shutdown = true;
    tasks.clear();
    return List.of();
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
    return isShutdown();
  }

  private synchronized <V> Task<V> add(Callable<V> callable, long delay, TimeUnit unit) {
    Task<V> task = new Task<>(callable, nowNanos + unit.toNanos(delay), sequence++);
    tasks.add(task);
    return task;
  }

  private final class Task<V> implements ScheduledFuture<V> {
    private final Callable<V> callable;
    private final long sequenceNumber;
    long dueNanos;
    long periodNanos;
    private boolean done;
    private boolean cancelled;
    private V result;
    private Exception failure;

    Task(Callable<V> callable, long dueNanos, long sequenceNumber) {
      this.callable = callable;
      this.dueNanos = dueNanos;
      this.sequenceNumber = sequenceNumber;
    }

    void run() {
      V value = null;
      Exception thrown = null;
      try {
        value = callable.call();
      } catch (Exception e) {
        thrown = e;
      }
      synchronized (FakeServerScheduler.this) {
        result = value;
        failure = thrown;
        if (periodNanos > 0 && !cancelled && thrown == null) {
          dueNanos = nowNanos + periodNanos;
          tasks.add(this);
        } else {
          done = true;
        }
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      synchronized (FakeServerScheduler.this) {
        return unit.convert(dueNanos - nowNanos, TimeUnit.NANOSECONDS);
      }
    }

    @Override
    public int compareTo(Delayed other) {
      Task<?> that = (Task<?>) other;
      int byTime = Long.compare(dueNanos, that.dueNanos);
      return byTime != 0 ? byTime : Long.compare(sequenceNumber, that.sequenceNumber);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      synchronized (FakeServerScheduler.this) {
        if (done || cancelled) {
          return false;
        }
        cancelled = true;
        tasks.remove(this);
        return true;
      }
    }

    @Override
    public boolean isCancelled() {
      synchronized (FakeServerScheduler.this) {
        return cancelled;
      }
    }

    @Override
    public boolean isDone() {
      synchronized (FakeServerScheduler.this) {
        return done || cancelled;
      }
    }

    @Override
    public V get() throws ExecutionException {
      synchronized (FakeServerScheduler.this) {
        if (cancelled) {
          throw new CancellationException();
        }
        if (!done) {
          throw new IllegalStateException("a fake-clock task cannot be waited for; forward time");
        }
        if (failure != null) {
          throw new ExecutionException(failure);
        }
        return result;
      }
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws ExecutionException {
      return get();
    }
  }
}
