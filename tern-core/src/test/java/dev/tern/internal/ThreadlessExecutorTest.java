package dev.tern.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ThreadlessExecutorTest {

  private final ThreadlessExecutor executor = new ThreadlessExecutor();
  private final ExecutorService otherThreads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    otherThreads.shutdownNow();
  }

  @Test
  void tasksSubmittedElsewhereRunOnTheDrainingThread() throws Exception {
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    otherThreads.submit(() -> executor.execute(() -> ranOn.set(Thread.currentThread()))).get();

    assertThat(ranOn.get()).isNull(); // queued, not run by the submitter
    executor.waitAndDrain();

    assertThat(ranOn.get()).isSameAs(Thread.currentThread());
  }

  @Test
  void waitAndDrainParksUntilAnotherThreadSubmits() throws Exception {
    CompletableFuture<Thread> ranOn = new CompletableFuture<>();
    CompletableFuture<Thread> owner = new CompletableFuture<>();
    CompletableFuture<Void> drained =
        CompletableFuture.runAsync(
            () -> {
              owner.complete(Thread.currentThread());
              try {
                executor.waitAndDrain();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            },
            otherThreads);
    Thread ownerThread = owner.get(10, TimeUnit.SECONDS);
    awaitParkedOn(ownerThread, executor);
    assertThat(drained).isNotDone();

    executor.execute(() -> ranOn.complete(Thread.currentThread()));

    drained.get(10, TimeUnit.SECONDS);
    assertThat(ranOn.get(10, TimeUnit.SECONDS)).isSameAs(ownerThread);
  }

  @Test
  void waitAndDrainRunsEverythingQueuedIncludingTasksAddedWhileDraining() throws Exception {
    List<String> ran = new ArrayList<>();
    executor.execute(() -> ran.add("a"));
    executor.execute(
        () -> {
          ran.add("b");
          executor.execute(() -> ran.add("c"));
        });

    executor.waitAndDrain();

    assertThat(ran).containsExactly("a", "b", "c");
  }

  @Test
  void drainRunsQueuedTasksAndReturnsWhenThereAreNone() {
    List<String> ran = new ArrayList<>();
    executor.drain(); // nothing queued: must not block

    executor.execute(() -> ran.add("a"));
    executor.execute(() -> ran.add("b"));
    assertThat(ran).isEmpty();
    executor.drain();

    assertThat(ran).containsExactly("a", "b");
  }

  @Test
  void aThrowingTaskDoesNotStopTheNextOnes() throws Exception {
    Logger logger = Logger.getLogger(ThreadlessExecutor.class.getName());
    Level saved = logger.getLevel();
    logger.setLevel(Level.OFF); // the failure below is expected; keep it out of the output
    try {
      List<String> ran = new ArrayList<>();
      executor.execute(
          () -> {
            throw new IllegalStateException("task failure");
          });
      executor.execute(() -> ran.add("after"));

      executor.waitAndDrain();

      assertThat(ran).containsExactly("after");
    } finally {
      logger.setLevel(saved);
    }
  }

  @Test
  void interruptedWaitThrowsAndClearsTheFlag() {
    Thread.currentThread().interrupt();

    assertThatThrownBy(executor::waitAndDrain).isInstanceOf(InterruptedException.class);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void interruptWakesAParkedWaiter() throws Exception {
    CompletableFuture<Thread> owner = new CompletableFuture<>();
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    otherThreads.execute(
        () -> {
          owner.complete(Thread.currentThread());
          try {
            executor.waitAndDrain();
            failure.complete(null);
          } catch (InterruptedException e) {
            failure.complete(e);
          }
        });
    Thread ownerThread = owner.get(10, TimeUnit.SECONDS);
    awaitParkedOn(ownerThread, executor);

    ownerThread.interrupt();

    assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
  }

  @Test
  void shutdownRunsWhatIsQueuedAndLateTasksRunOnTheSubmitter() throws Exception {
    List<String> ran = new ArrayList<>();
    executor.execute(() -> ran.add("queued"));

    executor.shutdown();
    assertThat(ran).containsExactly("queued");
    assertThat(executor.isShutdown()).isTrue();

    AtomicReference<Thread> lateRanOn = new AtomicReference<>();
    AtomicReference<Thread> submitter = new AtomicReference<>();
    otherThreads
        .submit(
            () -> {
              submitter.set(Thread.currentThread());
              executor.execute(() -> lateRanOn.set(Thread.currentThread()));
            })
        .get(10, TimeUnit.SECONDS);
    assertThat(lateRanOn.get()).isSameAs(submitter.get());
  }

  @Test
  void waitAndDrainAfterShutdownFailsInsteadOfBlockingForever() {
    executor.shutdown();

    assertThatThrownBy(executor::waitAndDrain)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("shut down");
  }

  @Test
  void rejectsNullTask() {
    assertThatThrownBy(() -> executor.execute(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("task");
  }

  /**
   * Waits until {@code thread} is parked with {@code blocker}, so the test really exercises the
   * wake-up path rather than a task that was queued before waiting began.
   */
  private static void awaitParkedOn(Thread thread, Object blocker) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (LockSupport.getBlocker(thread) != blocker) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("thread never parked: " + thread.getState());
      }
      Thread.yield();
    }
  }
}
