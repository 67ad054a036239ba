package dev.tern.internal;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An executor with no threads of its own: tasks run on the thread that calls {@link
 * #waitAndDrain()} or {@link #drain()}. A blocking stub uses it so that the callbacks of its call
 * run on the thread blocked in the stub, without a pool thread per blocking call.
 *
 * <p>Waiting does not spin: the owner thread parks until {@link #execute} unparks it. On a {@link
 * ForkJoinPool} worker (the default executor's, say a handler calling a blocking stub) it parks
 * through {@link ForkJoinPool#managedBlock}, so that the pool adds a spare worker while it waits.
 *
 * <p>After {@link #shutdown()}, {@link #execute} runs each task immediately on the submitting
 * thread. The owner calls {@code shutdown()} once it stops draining (its blocking call finished or
 * gave up); callbacks that still arrive, such as a message racing with a cancellation, then neither
 * block nor vanish, so the resources they carry are released. Those callbacks may run concurrently
 * with each other, so they must be cheap and self-contained, as the blocking stub's own listener
 * callbacks are.
 *
 * <p>Thread-safety: {@link #execute} may be called from any thread. {@link #waitAndDrain}, {@link
 * #drain} and {@link #shutdown} belong to a single owner thread and must not be called
 * concurrently.
 */
public final class ThreadlessExecutor implements Executor {

  private static final Logger logger = Logger.getLogger(ThreadlessExecutor.class.getName());

  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

  /** The owner thread while it is parked in {@link #waitAndDrain}, else null. */
  private volatile Thread waiter;

  private volatile boolean shutdown;

  /** Parks the owner until a task is queued or it is interrupted; used on pool workers. */
  private final ForkJoinPool.ManagedBlocker parker =
      new ForkJoinPool.ManagedBlocker() {
        @Override
        public boolean block() {
          LockSupport.park(ThreadlessExecutor.this);
          return isReleasable();
        }

        @Override
        public boolean isReleasable() {
          return !tasks.isEmpty() || Thread.currentThread().isInterrupted();
        }
      };

  /** Creates an executor whose tasks run when its owner drains it. */
  public ThreadlessExecutor() {}

  /**
   * Queues {@code task} for the owner thread and wakes it if it is waiting. After {@link
   * #shutdown()}, runs {@code task} on the calling thread instead.
   */
  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    if (shutdown) {
      runQuietly(task);
      return;
    }
    tasks.add(task);
    if (shutdown) {
      // shutdown() raced with this call and may already have drained the queue for the last
      // time: make sure the task queued above still runs.
      runQueued();
      return;
    }
    Thread parked = waiter;
    if (parked != null) {
      LockSupport.unpark(parked);
    }
  }

  /**
   * Blocks until at least one task is queued, then runs every queued task, including tasks queued
   * while these run, on the calling thread. Returns once the queue is empty.
   *
   * @throws InterruptedException if the calling thread is interrupted while waiting; queued tasks
   *     are then left for the next drain
   * @throws IllegalStateException if this executor is shut down (nothing would ever be queued)
   */
  public void waitAndDrain() throws InterruptedException {
    if (shutdown) {
      throw new IllegalStateException("ThreadlessExecutor is shut down");
    }
    Runnable task = tasks.poll();
    if (task == null) {
      // What this thread wrote before blocking (a call's request) must leave before it waits for
      // the answer, not a tick later.
      HeldWakes.wakeAll();
      Thread owner = Thread.currentThread();
      boolean poolWorker = owner instanceof ForkJoinWorkerThread;
      waiter = owner;
      try {
        // Publishing the waiter before polling again means a concurrent execute() either sees
        // the waiter and unparks it, or its task is found by this poll: no lost wake-ups.
        while ((task = tasks.poll()) == null) {
          if (Thread.interrupted()) {
            throw new InterruptedException();
          }
          if (poolWorker) {
            ForkJoinPool.managedBlock(parker);
          } else {
            LockSupport.park(this);
          }
        }
      } finally {
        waiter = null;
      }
    }
    do {
      runQuietly(task);
    } while ((task = tasks.poll()) != null);
  }

  /** Runs every queued task on the calling thread without waiting; returns if none is queued. */
  public void drain() {
    runQueued();
  }

  /**
   * Stops queueing: runs the tasks still queued on the calling thread, and from then on {@link
   * #execute} runs tasks on the submitting thread. Idempotent.
   */
  public void shutdown() {
    shutdown = true;
    runQueued();
  }

  /** Returns whether {@link #shutdown()} was called. */
  public boolean isShutdown() {
    return shutdown;
  }

  private void runQueued() {
    Runnable task;
    while ((task = tasks.poll()) != null) {
      runQuietly(task);
    }
  }

  private static void runQuietly(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "Exception while executing runnable " + task, e);
    }
  }
}
