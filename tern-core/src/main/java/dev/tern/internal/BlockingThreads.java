package dev.tern.internal;

import java.lang.reflect.Method;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where blocking handlers run: one new virtual thread per task when the JDK has virtual threads
 * (JDK 21 and later, found by reflection so that the bytecode stays Java 17), otherwise a shared
 * pool of at most {@link #POOL_SIZE} daemon threads whose excess tasks wait in an unbounded queue,
 * each task handed to the thread that went idle last ({@link ReusingThreadPool}).
 *
 * <p>Thread-safe: the choice is made once, when the class initialises; the pool is created on first
 * use and never shut down (its idle threads time out after a minute).
 */
public final class BlockingThreads {
  /** The most threads the fallback pool runs at once; further tasks wait for one of them. */
  public static final int POOL_SIZE = 256;

  private static final ThreadFactory VIRTUAL = virtualThreadFactory();

  private BlockingThreads() {}

  /** Whether this JDK has virtual threads, so that {@link #executor()} starts one per task. */
  public static boolean virtualThreadsAvailable() {
    return VIRTUAL != null;
  }

  /** Returns the shared executor for blocking handlers (see the class comment). */
  public static Executor executor() {
    return VIRTUAL != null ? VirtualThreadExecutor.INSTANCE : Pool.INSTANCE;
  }

  /** Starts a virtual thread per task; stateless. */
  private enum VirtualThreadExecutor implements Executor {
    INSTANCE;

    @Override
    public void execute(Runnable task) {
      VIRTUAL.newThread(task).start();
    }
  }

  /** Holds the fallback pool, created only if a JDK without virtual threads needs it. */
  private static final class Pool {
    static final Executor INSTANCE = newPool();

    private static Executor newPool() {
      AtomicLong count = new AtomicLong();
      return new ReusingThreadPool(
          POOL_SIZE,
          60,
          TimeUnit.SECONDS,
          task -> {
            Thread thread = new Thread(task, "tern-blocking-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });
    }
  }

  /**
   * {@code Thread.ofVirtual().name("tern-virtual-", 0).factory()}, called by reflection; null where
   * the JDK has no virtual threads.
   */
  private static ThreadFactory virtualThreadFactory() {
    try {
      Method ofVirtual = Thread.class.getMethod("ofVirtual");
      Class<?> builder = Class.forName("java.lang.Thread$Builder");
      Object virtual = ofVirtual.invoke(null);
      Object named =
          builder.getMethod("name", String.class, long.class).invoke(virtual, "tern-virtual-", 0L);
      return (ThreadFactory) builder.getMethod("factory").invoke(named);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // JDK 17 to 20: no virtual threads (or, on 19 and 20, only as a preview)
    }
  }
}
