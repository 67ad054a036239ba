package dev.tern.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The executor for application callbacks when the application configures none: a work-stealing
 * {@link ForkJoinPool} in async (FIFO) mode with one daemon worker per core ({@code
 * tern-default-executor-N}), and a stall watchdog that keeps a handler which blocks from stalling
 * the other calls.
 *
 * <p>A fixed number of workers serves non-blocking callbacks without a thread per call, but a
 * handler that blocks in a way the pool cannot see ({@code Thread.sleep}, {@code synchronized}, a
 * lock, blocking I/O) holds its worker; with every worker held, queued callbacks of other calls
 * would wait. Blocking the pool can see ({@link ForkJoinPool#managedBlock}, as Tern's blocking
 * stubs and {@code CompletableFuture.get} use) is compensated by the pool itself with a spare
 * worker. For the rest, the watchdog: while tasks are queued it looks every {@link
 * #STALL_CHECK_MILLIS} ms whether a worker finished a task since its last look; if none did while
 * work was queued, the pool is stalled, so it moves the queued tasks to a spill pool ({@code
 * tern-default-executor-spill-N}, a thread per task as a cached pool has, its idle threads ending
 * after a minute) and sends new tasks there until a worker of the pool is idle again. Each call's
 * callbacks stay in order: they reach this executor through the call's serializing executor, one
 * task at a time.
 *
 * <p>With one worker (a process with one core, where the event loops share it), what a task writes
 * to a transport's connections reaches their event loops as the task ends ({@link HeldWakes}): one
 * hand-off for a callback's writes, not one per write, bounded to a few milliseconds for a task
 * that writes and then blocks or runs on (once per task).
 *
 * <p>Thread-safe: {@link #execute} may be called from any thread. The shared instance is never shut
 * down; its threads are daemons.
 */
public final class DefaultExecutor implements Executor {
  /**
   * How often the watchdog looks while work is queued: a stall is noticed after one to two periods,
   * short enough that a blocked handler delays other calls by a fraction of a second and long
   * enough that a busy pool is not mistaken for a stalled one.
   */
  static final long STALL_CHECK_MILLIS = 50;

  private final Pool pool;
  private final ScheduledExecutorService timer;
  private final ThreadPoolExecutor spill;

  /**
   * Counts tasks the pool's workers finished. Updated without atomicity on purpose: the watchdog
   * only needs to see it move, and a lost increment among concurrent ones still moves it.
   */
  private final AtomicLong finished = new AtomicLong();

  /** Whether a watchdog check is scheduled; at most one is. */
  private final AtomicBoolean watching = new AtomicBoolean();

  /** Set by the watchdog while every worker is held: new tasks then go to the spill pool. */
  private volatile boolean stalled;

  /** The value of {@link #finished} at the watchdog's last look; only the watchdog uses it. */
  private long finishedAtLastCheck = -1;

  /**
   * Creates an executor with {@code parallelism} workers whose watchdog runs on {@code timer}.
   *
   * @throws IllegalArgumentException if {@code parallelism} is not positive
   */
  public DefaultExecutor(String name, int parallelism, ScheduledExecutorService timer) {
    Objects.requireNonNull(name, "name");
    if (parallelism <= 0) {
      throw new IllegalArgumentException("parallelism must be positive: " + parallelism);
    }
    this.timer = Objects.requireNonNull(timer, "timer");
    this.pool = new Pool(name, parallelism, parallelism == 1 ? new HeldWakes(timer) : null);
    this.spill =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            SharedExecutors.daemonThreads(name + "-spill"));
  }

  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    if (stalled) {
      spill.execute(task);
    } else {
      pool.execute(new Task(task));
    }
    if (!watching.get() && watching.compareAndSet(false, true)) {
      scheduleCheck();
    }
  }

  /** Schedules the watchdog's next look; the caller set {@link #watching}. */
  private void scheduleCheck() {
    try {
      timer.schedule(this::check, STALL_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      watching.set(false); // a timer that was shut down: no watchdog, but the task still runs
    }
  }

  /**
   * Stops both pools at once, abandoning queued tasks; for instances a test created, never for the
   * shared one.
   */
  public void shutdownNow() {
    pool.shutdownNow();
    spill.shutdownNow();
  }

  /** The number of the pool's worker threads alive now (spill threads not counted). */
  public int poolSize() {
    return pool.getPoolSize();
  }

  /** The number of the spill pool's threads alive now. */
  public int spillSize() {
    return spill.getPoolSize();
  }

  /** The number of workers the pool keeps running. */
  public int parallelism() {
    return pool.getParallelism();
  }

  /** The watchdog: runs on the timer, one check at a time. */
  private void check() {
    boolean again = true;
    try {
      again = look();
    } finally {
      // Whatever happened, the watchdog goes on while there is work about: a look that failed
      // must not leave later stalls unnoticed.
      watching.set(false);
      if (again && watching.compareAndSet(false, true)) {
        scheduleCheck();
      }
    }
  }

  /** One look (see the class comment); returns whether to look again. */
  private boolean look() {
    long done = finished.get();
    boolean queued = pool.hasQueuedSubmissions() || pool.getQueuedTaskCount() > 0;
    if (stalled) {
      if (pool.getActiveThreadCount() < pool.getParallelism()) {
        stalled = false; // a worker is free again: new tasks go to the pool
      } else if (queued) {
        spillQueued(); // tasks that raced with the switch to the spill pool
      }
    } else if (queued && done == finishedAtLastCheck) {
      stalled = true;
      spillQueued();
    }
    finishedAtLastCheck = done;
    // Still work about: look again. Once the pool is quiet, the next execute() re-arms.
    return stalled || queued || pool.getActiveThreadCount() > 0;
  }

  private void spillQueued() {
    List<ForkJoinTask<?>> moved = new ArrayList<>();
    pool.drainQueued(moved);
    for (ForkJoinTask<?> task : moved) {
      // Code running on a worker may fork tasks of its own into this pool (a parallel stream
      // does): those move too, run as they would have been.
      spill.execute(task instanceof Task callback ? callback.runnable : task::quietlyInvoke);
    }
  }

  /** One callback as a pool task; counts itself finished and reports what it throws. */
  private final class Task extends ForkJoinTask<Void> {
    private static final long serialVersionUID = 1L;

    @SuppressWarnings("serial") // never serialized
    final Runnable runnable;

    Task(Runnable runnable) {
      this.runnable = runnable;
    }

    @Override
    public Void getRawResult() {
      return null;
    }

    @Override
    protected void setRawResult(Void value) {}

    @Override
    protected boolean exec() {
      HeldWakes.Worker worker = Thread.currentThread() instanceof HeldWakes.Worker w ? w : null;
      if (worker != null) {
        worker.beginTask();
      }
      try {
        runnable.run();
      } catch (Throwable t) {
        Thread thread = Thread.currentThread();
        thread.getUncaughtExceptionHandler().uncaughtException(thread, t);
      } finally {
        if (worker != null) {
          worker.endTask();
        }
        finished.lazySet(finished.get() + 1);
      }
      return true;
    }
  }

  /** The work-stealing pool; a subclass only to reach the protected {@code drainTasksTo}. */
  private static final class Pool extends ForkJoinPool {
    /** A pool whose workers hold wake-ups through {@code heldWakes}; null: plain workers. */
    Pool(String name, int parallelism, HeldWakes heldWakes) {
      super(
          parallelism,
          workerFactory(name, heldWakes),
          null,
          true, // async mode: tasks submitted from the pool's workers run FIFO
          parallelism,
          parallelism + 256, // room for the spares that managedBlock adds (the JDK's default)
          1,
          null,
          60,
          TimeUnit.SECONDS);
    }

    void drainQueued(List<ForkJoinTask<?>> into) {
      drainTasksTo(into);
    }

    private static ForkJoinWorkerThreadFactory workerFactory(String name, HeldWakes heldWakes) {
      AtomicLong count = new AtomicLong();
      return pool -> {
        ForkJoinWorkerThread thread =
            heldWakes == null ? new ForkJoinWorkerThread(pool) {} : heldWakes.newWorker(pool);
        thread.setName(name + "-" + count.incrementAndGet());
        thread.setDaemon(true);
        return thread;
      };
    }
  }
}
