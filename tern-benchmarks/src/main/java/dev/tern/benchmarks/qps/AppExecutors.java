package dev.tern.benchmarks.qps;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * The application executor of every qps program here unless {@code --directexecutor}: the one
 * grpc-java's {@code AsyncServer} and {@code AsyncClient} install, a {@link ForkJoinPool} in FIFO
 * (async) mode with one daemon thread per core, so that every system runs the same thread setup.
 * Uses the JDK only (the provider qps programs import nothing of Tern's).
 */
final class AppExecutors {
  private AppExecutors() {}

  /** A new such pool, its threads named {@code threadPrefix} and their index. */
  static ForkJoinPool newForkJoinPool(String threadPrefix) {
    return new ForkJoinPool(
        Runtime.getRuntime().availableProcessors(),
        pool -> {
          ForkJoinWorkerThread thread =
              ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
          thread.setName(threadPrefix + thread.getPoolIndex());
          thread.setDaemon(true);
          return thread;
        },
        null,
        true);
  }
}
