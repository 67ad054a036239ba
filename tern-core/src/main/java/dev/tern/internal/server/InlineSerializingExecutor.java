package dev.tern.internal.server;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a {@link dev.tern.internal.SerializingExecutor} over an inline executor does, for callers
 * that are serialized already: a call's callbacks when they run on the transport's thread (the
 * server's {@code directExecutor()}, or a {@link CallbacksNeverBlock} handler). A task runs at
 * once, through {@code delegate}, on the calling thread; a task submitted while one of this
 * executor's tasks runs (a callback that made the transport report another event on the same
 * thread) waits until the running one returns and then runs on the same thread, in order. So tasks
 * never nest and never overlap, as with the serializing executor, but without its three monitor
 * round trips per task: about a tenth of the CPU time of a message echoed on an in-process bidi
 * stream with direct executors ({@code CallBenchmark.streamingPingPong1024}: two server tasks per
 * message).
 *
 * <p>A task that throws a {@link RuntimeException} is logged and the next task still runs. After an
 * {@link Error}, the tasks waiting behind the failed one still run before the error propagates.
 *
 * <p>Not thread-safe: {@link #execute} must be called by one thread at a time, each call
 * happening-before the next, which is what the transport SPI promises of a stream listener's events
 * (the only callers here), including any event a task submits from inside.
 */
final class InlineSerializingExecutor implements Executor {
  private static final Logger logger = Logger.getLogger(InlineSerializingExecutor.class.getName());

  /** Runs each task it is given on the calling thread, before returning. */
  private final Executor delegate;

  /** Runs {@link #next} and then whatever was submitted meanwhile; reused, so it costs nothing. */
  private final Runnable runTasks = this::runTasks;

  /** Submitted while a task ran; created on first need (most calls never have one). */
  private ArrayDeque<Runnable> waiting;

  /** The task {@link #runTasks} starts with. */
  private Runnable next;

  /** True while a task of this executor runs on the (one) calling thread. */
  private boolean running;

  /**
   * An executor whose tasks run through {@code delegate}, which must run each task on the calling
   * thread before returning (a direct executor, a {@link dev.tern.NonBlockingScope}).
   */
  InlineSerializingExecutor(Executor delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * Runs {@code task} now, unless a task of this executor is running: then it runs after that one
   * (and after any submitted before it).
   */
  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    if (running) {
      if (waiting == null) {
        waiting = new ArrayDeque<>(4);
      }
      waiting.add(task);
      return;
    }
    running = true;
    next = task;
    try {
      delegate.execute(runTasks);
    } finally {
      running = false;
      next = null;
    }
  }

  private void runTasks() {
    Runnable task = next;
    next = null;
    for (; task != null; task = waiting == null ? null : waiting.poll()) {
      try {
        task.run();
      } catch (RuntimeException e) {
        logger.log(Level.SEVERE, "Exception while executing runnable " + task, e);
      } catch (Error e) {
        runWaitingAfter(e);
        throw e;
      }
    }
  }

  /** After a task threw {@code e}: runs the tasks behind it, adding their errors to {@code e}. */
  private void runWaitingAfter(Error e) {
    for (Runnable task; waiting != null && (task = waiting.poll()) != null; ) {
      try {
        task.run();
      } catch (RuntimeException later) {
        logger.log(Level.SEVERE, "Exception while executing runnable " + task, later);
      } catch (Error later) {
        e.addSuppressed(later);
      }
    }
  }
}
