package dev.tern.netty.internal.io;

import dev.tern.internal.DefaultExecutor;
import dev.tern.spi.HandOff;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;

/**
 * An event loop's {@link HandOff}: what the streams read on the loop give the application's
 * executor (a server's calls, a client's responses) is gathered, and handed over from one task the
 * loop runs after its I/O. The calls of one batch of reads (one per connection with 10,000
 * connections of one stream each) then wake the executor once: on a core shared with the loop, each
 * wake-up during the reads was a worker that took the core from the loop, ran one call and parked
 * again. Server and client connections on the same loop share its one hand-off.
 *
 * <p>A batch's tasks for a work-stealing pool (a {@link ForkJoinPool}, Tern's default executor) go
 * over as a {@link Chain}: the first worker to run it hands the rest straight back to the pool
 * before running its own task, so a pool of many threads still runs the batch's calls side by side.
 * Any other executor gets the batch's tasks one by one at the batch's end, so a bounded queue still
 * counts calls. A refusal reaches each task's {@link HandOff.Task#rejected} on the loop, as a
 * refusal at once would.
 *
 * <p>Thread-safety: one per event loop, its pending lists touched only on the loop's thread; {@link
 * #execute} from any other thread hands over at once.
 */
public final class ReadBatchHandOff implements HandOff {
  private static final FastThreadLocal<ReadBatchHandOff> PER_LOOP = new FastThreadLocal<>();

  /**
   * The most tasks a batch gathers before they are handed over in the middle of the reads. Without
   * a bound, a loop reading 10,000 connections' calls would start them all before the executor ran
   * one: every call would count as in progress at once, and the adaptive limit would shed most of
   * them. With it, the executor is woken once per this many calls and keeps up with the reads.
   */
  static final int MAX_BATCH = 64;

  private final EventExecutor loop;

  /** The executor of the tasks gathered, or null when there are none (loop thread). */
  private Executor batchExecutor;

  /** The batch so far (loop thread). */
  private final ArrayList<Task> tasks = new ArrayList<>();

  /** A {@link #flush} is queued on the loop (loop thread). */
  private boolean flushScheduled;

  private final Runnable flush = this::flush;

  private ReadBatchHandOff(EventExecutor loop) {
    this.loop = loop;
  }

  /** The hand-off of {@code loop}, called on it; off it, {@link HandOff#DIRECT}. */
  public static HandOff of(EventExecutor loop) {
    if (!loop.inEventLoop()) {
      return HandOff.DIRECT;
    }
    ReadBatchHandOff handOff = PER_LOOP.get();
    if (handOff == null || handOff.loop != loop) {
      // (A thread can drive more than one loop in tests: embedded channels.)
      handOff = new ReadBatchHandOff(loop);
      PER_LOOP.set(handOff);
    }
    return handOff;
  }

  @Override
  public void execute(Executor executor, Task task) {
    if (!loop.inEventLoop()) {
      DIRECT.execute(executor, task);
      return;
    }
    if (executor != batchExecutor) {
      handOverPending(); // a batch is for one executor (a server has one, or one per method)
      batchExecutor = executor;
    }
    tasks.add(task);
    if (tasks.size() >= MAX_BATCH) {
      handOverPending();
      return;
    }
    if (flushScheduled) {
      return;
    }
    flushScheduled = true;
    try {
      loop.execute(flush);
    } catch (RejectedExecutionException e) {
      // The loop is shutting down: nothing would run the batch, of which this is the only task.
      flushScheduled = false;
      tasks.clear();
      batchExecutor = null;
      DIRECT.execute(executor, task);
    }
  }

  /** Loop thread, after its I/O. */
  private void flush() {
    flushScheduled = false;
    handOverPending();
  }

  /** Loop thread: the batch goes to its executor. */
  private void handOverPending() {
    if (tasks.isEmpty()) {
      return;
    }
    Executor executor = batchExecutor;
    Task[] batch = tasks.toArray(new Task[0]);
    tasks.clear();
    batchExecutor = null;
    if (batch.length > 1 && spreads(executor)) {
      handOver(executor, batch);
    } else {
      for (Task task : batch) {
        DIRECT.execute(executor, task);
      }
    }
  }

  /**
   * Whether {@code executor} is a work-stealing pool with an unbounded queue, which takes a run of
   * tasks as one {@link Chain}. Any other executor gets each task on its own, so that a bounded
   * queue still counts calls, not batches.
   */
  private static boolean spreads(Executor executor) {
    return executor instanceof ForkJoinPool || executor instanceof DefaultExecutor;
  }

  private void handOver(Executor executor, Task[] batch) {
    try {
      executor.execute(new Chain(executor, batch, loop));
    } catch (RejectedExecutionException e) {
      for (Task task : batch) {
        task.rejected(e);
      }
    }
  }

  /**
   * Runs one task of a run and hands the rest back to the executor first. Each hand-over
   * happens-before the next run, which alone reads and moves {@link #next}.
   */
  static final class Chain implements Runnable {
    private final Executor executor;
    private final Task[] tasks;
    private final EventExecutor loop;
    private int next;

    Chain(Executor executor, Task[] tasks, EventExecutor loop) {
      this.executor = executor;
      this.tasks = tasks;
      this.loop = loop;
    }

    @Override
    public void run() {
      int index = next;
      next = index + 1;
      if (index + 1 < tasks.length) {
        try {
          executor.execute(this);
        } catch (RejectedExecutionException e) {
          rejectRest(index + 1, e);
        }
      }
      tasks[index].run();
    }

    /** The executor refused the rest from one of its own threads: they hear it on the loop. */
    private void rejectRest(int from, RejectedExecutionException e) {
      Task[] rest = Arrays.copyOfRange(tasks, from, tasks.length);
      Runnable reject =
          () -> {
            for (Task task : rest) {
              task.rejected(e);
            }
          };
      try {
        loop.execute(reject);
      } catch (RejectedExecutionException loopGone) {
        reject.run();
      }
    }
  }
}
