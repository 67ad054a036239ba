package dev.tern.spi;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * How a stream's work reaches the application's executor (a server call's callbacks, a client
 * call's responses): handed over at once, or gathered on the transport's thread until it has
 * finished its current batch of reads, so that the calls of one batch wake the executor once
 * instead of once each. On a core shared by the transport's thread and the executor's, each
 * hand-off during the reads is a thread the transport wakes that then takes the core from it: two
 * context switches a call when each read brings one call.
 *
 * <p>Thread-safe: {@link #execute} may be called from any thread; off the transport's own thread it
 * hands over at once.
 */
public interface HandOff {
  /**
   * Gives {@code task} to {@code executor}, now or after the transport's current batch of reads. If
   * the executor refuses it, {@link Task#rejected} is called instead of running it: at once on the
   * calling thread, or on the transport's thread at the end of the batch.
   */
  void execute(Executor executor, Task task);

  /** Work handed over, and what to do if the executor refuses it. */
  interface Task extends Runnable {
    /** {@code executor} refused this task, which will not run; called at most once per hand-off. */
    void rejected(RejectedExecutionException e);
  }

  /**
   * Hands each task over at once, on the calling thread: the in-process transport's way, and any
   * stream's that does not say otherwise.
   */
  HandOff DIRECT =
      (executor, task) -> {
        try {
          executor.execute(task);
        } catch (RejectedExecutionException e) {
          task.rejected(e);
        }
      };
}
