package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class CallbackQueueTest {
  private final List<String> ran = new CopyOnWriteArrayList<>();

  @Test
  void enqueuedEventsRunOnlyWhenDrainedInOrder() {
    CallbackQueue queue = new CallbackQueue(false);
    queue.enqueue(() -> ran.add("a"));
    queue.enqueue(() -> ran.add("b"));
    assertThat(ran).isEmpty();

    queue.drain();

    assertThat(ran).containsExactly("a", "b");
  }

  @Test
  void anEventThatDrainsAgainDoesNotRecurse() {
    CallbackQueue queue = new CallbackQueue(false);
    queue.enqueue(
        () -> {
          ran.add("outer-start");
          queue.enqueue(() -> ran.add("inner"));
          queue.drain(); // must not run "inner" inside "outer"
          ran.add("outer-end");
        });

    queue.drain();

    assertThat(ran).containsExactly("outer-start", "outer-end", "inner");
  }

  @Test
  void heldQueueRunsNothingUntilReleased() {
    CallbackQueue queue = new CallbackQueue(true);
    queue.enqueue(() -> ran.add("held"));
    queue.drain();
    assertThat(ran).isEmpty();

    queue.release();
    queue.drain();

    assertThat(ran).containsExactly("held");
  }

  @Test
  void aThrowingEventIsLoggedAndTheNextStillRuns() {
    Logger logger = Logger.getLogger(CallbackQueue.class.getName());
    Level saved = logger.getLevel();
    logger.setLevel(Level.OFF); // the SEVERE record is expected
    try {
      CallbackQueue queue = new CallbackQueue(false);
      queue.enqueue(
          () -> {
            throw new IllegalStateException("listener bug");
          });
      queue.enqueue(() -> ran.add("after"));

      queue.drain();

      assertThat(ran).containsExactly("after");
    } finally {
      logger.setLevel(saved);
    }
  }

  @Test
  void concurrentDrainersNeverOverlapLoseNothingAndKeepEachThreadsOrder() throws Exception {
    int threads = 4;
    int eventsPerThread = 20_000;
    CallbackQueue queue = new CallbackQueue(false);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger count = new AtomicInteger();
    AtomicInteger outOfOrder = new AtomicInteger();
    int[] lastRun = new int[threads]; // events run one at a time, each after the one before
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int producer = t;
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < eventsPerThread; i++) {
                    int sequence = i + 1;
                    queue.enqueue(
                        () -> {
                          if (running.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                          }
                          if (lastRun[producer] != sequence - 1) {
                            outOfOrder.incrementAndGet();
                          }
                          lastRun[producer] = sequence;
                          count.incrementAndGet();
                          running.decrementAndGet();
                        });
                    queue.drain();
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(overlaps).hasValue(0);
    assertThat(outOfOrder).hasValue(0);
    assertThat(count).hasValue(threads * eventsPerThread);
  }
}
