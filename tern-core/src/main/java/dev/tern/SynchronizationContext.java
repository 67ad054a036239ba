package dev.tern;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs tasks one at a time, in the order they were submitted, on the threads that submit them: a
 * thread that submits a task while no other is draining runs the queue itself, including tasks
 * others add meanwhile. A channel's name resolver and load balancer callbacks run in one such
 * context, so they never run concurrently and need no locks of their own; a task that submits
 * another (from inside the context) has it run after itself, never nested.
 *
 * <p>A task that throws does not stop the others: the exception goes to the handler given at
 * construction.
 *
 * <p>Thread-safe.
 */
public final class SynchronizationContext implements Executor {
  private final Thread.UncaughtExceptionHandler handler;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicReference<Thread> drainingThread = new AtomicReference<>();

  /**
   * @param handler receives what a task throws; it runs in the context and must not throw
   */
  public SynchronizationContext(Thread.UncaughtExceptionHandler handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  /** Queues {@code task} and, unless another thread is draining, runs the queue now. */
  @Override
  public void execute(Runnable task) {
    executeLater(task);
    drain();
  }

  /** Queues {@code task} without running it; a later {@link #drain()} (or execute) runs it. */
  public void executeLater(Runnable task) {
    queue.add(Objects.requireNonNull(task, "task"));
  }

  /** Runs the queued tasks, unless another thread is already doing so. */
  public void drain() {
    do {
      if (!drainingThread.compareAndSet(null, Thread.currentThread())) {
        return;
      }
      try {
        Runnable task;
        while ((task = queue.poll()) != null) {
          try {
            task.run();
          } catch (Throwable t) {
            handler.uncaughtException(Thread.currentThread(), t);
          }
        }
      } finally {
        drainingThread.set(null);
      }
      // A task added after the last poll but before the release must not be stranded.
    } while (!queue.isEmpty());
  }

  /**
   * Throws {@link IllegalStateException} unless the calling thread is running this context's tasks:
   * for code that must only run in the context.
   */
  public void throwIfNotInThisSynchronizationContext() {
    if (drainingThread.get() != Thread.currentThread()) {
      throw new IllegalStateException("Not called from the SynchronizationContext");
    }
  }

  /**
   * Runs {@code task} in this context after {@code delay}, timed by {@code timer}.
   *
   * @return a handle that cancels it; cancelling from inside the context guarantees it will not run
   */
  public ScheduledHandle schedule(
      Runnable task, long delay, TimeUnit unit, ScheduledExecutorService timer) {
    Objects.requireNonNull(task, "task");
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(timer, "timer");
    ManagedRunnable managed = new ManagedRunnable(task);
    ScheduledFuture<?> future = timer.schedule(() -> execute(managed), delay, unit);
    return new ScheduledHandle(managed, future);
  }

  /** A task that can be cancelled until it starts. Used only inside the context. */
  private static final class ManagedRunnable implements Runnable {
    final Runnable task;
    volatile boolean cancelled;
    volatile boolean started;

    ManagedRunnable(Runnable task) {
      this.task = task;
    }

    @Override
    public void run() {
      if (!cancelled) {
        started = true;
        task.run();
      }
    }
  }

  /** A task scheduled by {@link #schedule}. Thread-safe. */
  public static final class ScheduledHandle {
    private final ManagedRunnable runnable;
    private final ScheduledFuture<?> future;

    private ScheduledHandle(ManagedRunnable runnable, ScheduledFuture<?> future) {
      this.runnable = runnable;
      this.future = future;
    }

    /** Stops the task from running (if it has not started). */
    public void cancel() {
      runnable.cancelled = true;
      future.cancel(false);
    }

    /** Whether the task is still to run: neither started nor cancelled. */
    public boolean isPending() {
      return !(runnable.started || runnable.cancelled);
    }
  }
}
