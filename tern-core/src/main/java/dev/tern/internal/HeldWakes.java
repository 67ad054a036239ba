package dev.tern.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Wake-ups of a transport's event loop that a {@link DefaultExecutor} worker holds while it runs a
 * task, so that what one callback writes (a unary call's response and trailers, a stream's burst of
 * messages) reaches the event loop in one hand-off as the callback returns, not one per write.
 *
 * <p>Where the event loop and the worker share a core (a container of one CPU), every wake-up of
 * the event loop while the worker runs is a pair of context switches: the woken event loop takes
 * the core, writes what was queued so far, and sleeps again. A server-streaming handler writing ten
 * messages paid several such pairs a call (docs/reliability.md, "The tail at the limit"). With more
 * cores the woken event loop writes beside the worker instead, and holding its wake-up only delays
 * the writes (the first end-to-end 4x10 pairs on two cores read 195,000 calls a second before,
 * 142,000-192,000 with holds): so only a {@link DefaultExecutor} of one worker, a process with one
 * core, makes its threads {@link Worker}s; others have plain pool threads and pay nothing.
 *
 * <p>A hold outlasts the task that made it by at most one to two ticks ({@link #TICK_MICROS}): a
 * handler that writes and then blocks (a sleep, a lock, I/O the pool cannot see) or computes for a
 * long time has its held wake-ups run by a tick on the executor's timer, which runs only while
 * workers hold them, and that task holds nothing more (so a subscription looping in one task is
 * late once, by at most two ticks, not at every message). Tern's own blocking waits ({@link
 * ThreadlessExecutor}, {@code BlockingClientCall}) run them before they block, and a worker holds
 * at most {@link #MAX_HELD} at once (more wake at once).
 *
 * <p>Thread-safety: {@link #holder} and {@link #wakeAll} act on the calling thread's own holds; a
 * worker's holds are written by that worker only and read by the tick, which wakes a hold at most
 * once because {@link Wake#wakeHeld} is idempotent. One tick is scheduled at a time.
 */
public final class HeldWakes {
  /** An event loop's wake-up a worker may hold. */
  public interface Wake {
    /**
     * Wakes the event loop if this wake-up is still held; a no-op if it was woken already. Any
     * thread; at most one caller wakes each hold.
     */
    void wakeHeld();
  }

  /**
   * How often the tick looks while workers hold wake-ups: a hold outlasts its task by one to two
   * ticks. Each tick is a wake-up of the timer, which on a shared core takes it from the worker: at
   * a millisecond (1,650 wake-ups a second with the re-arming) the server-only row with the
   * server's defaults lost 4% of its calls; at 5 ms and a fixed rate, 200 a second.
   */
  static final long TICK_MICROS = 5_000;

  /** The most wake-ups a worker holds at once: connections one task writes to. */
  static final int MAX_HELD = 8;

  private final ScheduledExecutorService timer;
  private final CopyOnWriteArrayList<Worker> workers = new CopyOnWriteArrayList<>();
  private final AtomicBoolean ticking = new AtomicBoolean();
  private final Runnable tick = this::tick;

  /** Set once the timer refused a tick: holding would then have no bound, so nothing is held. */
  private volatile boolean disabled;

  /** Holds for workers made by {@link #newWorker}, bounded by ticks on {@code timer}. */
  HeldWakes(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /**
   * The calling thread as a holder of wake-ups, if it is a worker running a task with room for one
   * more; null otherwise (the caller wakes the event loop itself).
   */
  public static Worker holder() {
    return Thread.currentThread() instanceof Worker worker && worker.canHold() ? worker : null;
  }

  /** Runs the wake-ups the calling thread holds: before it blocks, so that what it wrote leaves. */
  public static void wakeAll() {
    if (Thread.currentThread() instanceof Worker worker) {
      worker.wakeHeld();
    }
  }

  /** A worker of {@code pool} whose tasks may hold wake-ups. */
  Worker newWorker(ForkJoinPool pool) {
    return new Worker(pool, this);
  }

  private void arm() {
    if (!ticking.get() && ticking.compareAndSet(false, true)) {
      schedule();
    }
  }

  private void schedule() {
    try {
      timer.schedule(tick, TICK_MICROS, TimeUnit.MICROSECONDS);
    } catch (RejectedExecutionException e) {
      disabled = true; // a timer that was shut down (a test's executor): hold nothing from now on
      for (Worker worker : workers) {
        worker.wakeHeld(true);
      }
    }
  }

  /**
   * The tick (timer thread, one at a time): wakes what a worker has held since the last tick, and
   * looks again while any worker holds something or ran a task since the last tick (so a busy pool
   * keeps one tick a period, not a tick re-armed, with a wake-up of the timer, per hold).
   */
  private void tick() {
    boolean again = false;
    for (Worker worker : workers) {
      again |= worker.look();
    }
    if (again) {
      schedule();
      return;
    }
    ticking.set(false);
    for (Worker worker : workers) {
      if (worker.holding()) {
        arm(); // a hold made after this tick looked at its worker, whose arm() saw it ticking
        return;
      }
    }
  }

  /**
   * A {@link DefaultExecutor} worker: between {@link #beginTask} and {@link #endTask} it may hold
   * wake-ups, and it runs them at the end of the task.
   */
  public static final class Worker extends ForkJoinWorkerThread {
    private static final VarHandle COUNT;
    private static final VarHandle TASK;

    static {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      COUNT = FieldHandles.of(lookup, "count", int.class);
      TASK = FieldHandles.of(lookup, "task", long.class);
    }

    private final HeldWakes owner;
    private final Wake[] held = new Wake[MAX_HELD];

    /** Written by this worker only (release), read by the tick (acquire). */
    @SuppressWarnings("unused") // through COUNT
    private int count;

    /** This worker's task number, counted up as each begins; written and read as {@link #count}. */
    @SuppressWarnings("unused") // through TASK
    private long task;

    /**
     * The task whose holds a tick woke: it holds no more (a task that writes and then blocks, or a
     * subscription looping in one task, has its later writes leave at once). Written by the tick.
     */
    private volatile long wokenByTick = -1;

    private boolean inTask;

    /** The tick's own: the task number it saw holding at its last look; -1 if none. */
    private long seenHolding = -1;

    /** The tick's own: {@link #task} at its last look. */
    private long seenTask;

    Worker(ForkJoinPool pool, HeldWakes owner) {
      super(pool);
      this.owner = owner;
    }

    @Override
    protected void onStart() {
      super.onStart();
      owner.workers.add(this);
    }

    @Override
    protected void onTermination(Throwable exception) {
      owner.workers.remove(this);
      wakeHeld(true);
      super.onTermination(exception);
    }

    /** A task begins on this worker. */
    void beginTask() {
      TASK.setRelease(this, (long) TASK.getOpaque(this) + 1);
      inTask = true;
    }

    /** The task ended: what it held wakes now. */
    void endTask() {
      inTask = false;
      wakeHeld();
    }

    boolean canHold() {
      return inTask
          && (int) COUNT.getOpaque(this) < MAX_HELD
          && wokenByTick != (long) TASK.getOpaque(this)
          && !owner.disabled;
    }

    /**
     * Holds {@code wake} until this task ends (or a tick finds it held); the caller checked {@link
     * HeldWakes#holder} on this thread just before.
     */
    public void hold(Wake wake) {
      int n = (int) COUNT.getOpaque(this);
      held[n] = wake;
      COUNT.setRelease(this, n + 1);
      if (n == 0) {
        owner.arm();
      }
    }

    void wakeHeld() {
      wakeHeld(false);
    }

    /** Runs every held wake-up; {@code fromOtherThread} for callers other than this worker. */
    private void wakeHeld(boolean fromOtherThread) {
      int n = (int) COUNT.getAcquire(this);
      for (int i = 0; i < n; i++) {
        Wake wake = held[i];
        if (wake != null) {
          wake.wakeHeld();
        }
      }
      if (!fromOtherThread && n > 0) {
        for (int i = 0; i < n; i++) {
          held[i] = null;
        }
        COUNT.setRelease(this, 0);
      }
    }

    boolean holding() {
      return (int) COUNT.getAcquire(this) > 0;
    }

    /**
     * The tick's look: wakes what this worker holds if it was already holding in the same task at
     * the last look (and that task holds no more); returns whether it holds something now or ran a
     * task since the last look, to look again.
     */
    boolean look() {
      long now = (long) TASK.getAcquire(this);
      boolean ran = now != seenTask;
      seenTask = now;
      if (!holding()) {
        seenHolding = -1;
        return ran;
      }
      if (now == seenHolding) {
        wokenByTick = now;
        wakeHeld(true);
      }
      seenHolding = now;
      return true;
    }
  }
}
