package dev.tern.stub;

import dev.tern.internal.BlockingThreads;
import java.util.concurrent.Executor;

/**
 * The executor that {@link BlockingServerCalls} runs blocking service methods on unless given
 * another: on JDK 21 and later a new virtual thread for each call (detected at run time; Tern's
 * jars are Java 17 bytecode), on JDK 17 to 20 a shared pool of at most {@link #POOL_SIZE} daemon
 * threads, where calls beyond that many wait in a queue until a thread is free (they are not
 * refused).
 *
 * <p>To choose for yourself, pass an executor to the {@code BlockingServerCalls} factories or to
 * the generated {@code bindBlockingService(service, executor)}; one that refuses a call (throws
 * {@link java.util.concurrent.RejectedExecutionException}) makes the call fail with {@code
 * RESOURCE_EXHAUSTED}.
 *
 * <p>Thread-safe: the choice is made once per JVM.
 */
public final class BlockingExecutors {
  /** The most threads the fallback pool (JDKs without virtual threads) runs at once. */
  public static final int POOL_SIZE = BlockingThreads.POOL_SIZE;

  private BlockingExecutors() {}

  /** Whether this JDK has virtual threads, so that {@link #defaultExecutor()} uses them. */
  public static boolean virtualThreadsAvailable() {
    return BlockingThreads.virtualThreadsAvailable();
  }

  /**
   * Returns the default executor for blocking service methods: one virtual thread per task where
   * the JDK has them, the shared pool otherwise. Shared by the whole JVM; never shut it down (it
   * does not implement {@code ExecutorService}).
   */
  public static Executor defaultExecutor() {
    return BlockingThreads.executor();
  }
}
