package dev.tern.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Process-wide executors used when the application configures none: a {@link DefaultExecutor} for
 * application callbacks (a work-stealing pool with one worker per core, which keeps a blocked
 * handler from stalling the rest), and one timer thread for deadlines and idle timeouts. Both use
 * daemon threads and are never shut down, so they cannot keep a JVM alive or be shut down under
 * another channel's feet. Thread-safe (lazy holders).
 */
public final class SharedExecutors {
  private SharedExecutors() {}

  /** The default executor for application callbacks, of servers and channels alike. */
  public static DefaultExecutor callbackExecutor() {
    return CallbackHolder.INSTANCE;
  }

  /** The shared timer; tasks must be short and never block. */
  public static ScheduledExecutorService timer() {
    return TimerHolder.INSTANCE;
  }

  private static final class CallbackHolder {
    static final DefaultExecutor INSTANCE =
        new DefaultExecutor(
            "tern-default-executor", Runtime.getRuntime().availableProcessors(), timer());
  }

  private static final class TimerHolder {
    static final ScheduledExecutorService INSTANCE = newTimer();

    private static ScheduledExecutorService newTimer() {
      ScheduledThreadPoolExecutor timer =
          new ScheduledThreadPoolExecutor(1, daemonThreads("tern-timer"));
      // Cancelled deadlines are the common case; drop them from the queue at once.
      timer.setRemoveOnCancelPolicy(true);
      return timer;
    }
  }

  /** A factory of named daemon threads. */
  public static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
