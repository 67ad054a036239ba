package dev.tern.internal;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs tasks on at most {@code maxThreads} threads at once, handing each to the thread that went
 * idle last; tasks beyond that many wait in a queue, in order, and are never refused. Idle threads
 * end after the keep-alive time.
 *
 * <p>A {@link ThreadPoolExecutor} with that many core threads and a queue would start a new thread
 * for each of the first {@code maxThreads} tasks even while others sit idle, and then wake its idle
 * threads in turn, the one idle longest first: each task then waits for a cold thread. Here the
 * threads come from an unbounded pool whose idle threads wait on a {@link SynchronousQueue} (the
 * one that waited last takes the next hand-off, as in a cached pool), and a count of the threads
 * running this pool's tasks keeps them to {@code maxThreads}: each takes tasks from the queue until
 * it is empty, so a task queued while all are busy is taken by the first to finish.
 *
 * <p>Thread-safe: {@link #execute} may be called from any thread.
 */
final class ReusingThreadPool implements Executor {
  private final int maxThreads;
  private final ThreadPoolExecutor threads;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();

  /** What each claimed thread runs: made once, not per claim. */
  private final Runnable drainTask = this::drain;

  /** Threads taking tasks from {@link #queue} now; at most {@link #maxThreads}. */
  private final AtomicInteger running = new AtomicInteger();

  /**
   * @throws IllegalArgumentException if {@code maxThreads} is not positive
   */
  ReusingThreadPool(int maxThreads, long keepAlive, TimeUnit unit, ThreadFactory factory) {
    if (maxThreads <= 0) {
      throw new IllegalArgumentException("maxThreads must be positive: " + maxThreads);
    }
    this.maxThreads = maxThreads;
    this.threads =
        new ThreadPoolExecutor(
            0, Integer.MAX_VALUE, keepAlive, unit, new SynchronousQueue<>(), factory);
  }

  @Override
  public void execute(Runnable task) {
    queue.add(Objects.requireNonNull(task, "task"));
    if (claimThread()) {
      try {
        threads.execute(drainTask);
      } catch (RuntimeException | Error e) {
        running.decrementAndGet(); // no thread could be started; a running one takes the task
        throw e;
      }
    }
  }

  /** The number of threads alive, running tasks or idle. */
  int threadCount() {
    return threads.getPoolSize();
  }

  /** Counts one more thread running tasks, unless {@link #maxThreads} already are. */
  private boolean claimThread() {
    for (int n = running.get(); n < maxThreads; n = running.get()) {
      if (running.compareAndSet(n, n + 1)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs queued tasks until none is left. After giving its claim back it looks once more: a task
   * queued while this thread still counted (so no thread was started for it) is then seen here.
   */
  private void drain() {
    do {
      Runnable task;
      while ((task = queue.poll()) != null) {
        try {
          task.run();
        } catch (RuntimeException | Error e) {
          Thread current = Thread.currentThread();
          current.getUncaughtExceptionHandler().uncaughtException(current, e);
        }
      }
      running.decrementAndGet();
    } while (!queue.isEmpty() && claimThread());
  }
}
