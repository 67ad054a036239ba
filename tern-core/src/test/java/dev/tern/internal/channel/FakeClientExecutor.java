package dev.tern.internal.channel;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/** An executor that queues tasks until the test runs them. Thread-safe. */
final class FakeClientExecutor implements Executor {
  private final Queue<Runnable> tasks = new ArrayDeque<>();

  @Override
  public synchronized void execute(Runnable command) {
    tasks.add(command);
  }

  synchronized int queued() {
    return tasks.size();
  }

  /** Runs queued tasks (and those they queue) on the calling thread; returns how many ran. */
  int runAll() {
    int ran = 0;
    while (true) {
      Runnable next;
      synchronized (this) {
        next = tasks.poll();
      }
      if (next == null) {
        return ran;
      }
      next.run();
      ran++;
    }
  }
}
