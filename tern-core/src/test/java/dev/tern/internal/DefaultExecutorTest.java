package dev.tern.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.testing.FakeClock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The default executor with its watchdog on a fake clock, so that the test decides when the
 * watchdog looks: blocked workers are compensated (managed blocking) or their queued work is
 * spilled (blocking the pool cannot see).
 */
@Timeout(60)
class DefaultExecutorTest {
  private static final int PARALLELISM = 2;

  private final FakeClock clock = new FakeClock();
  private final DefaultExecutor executor = new DefaultExecutor("test-default", PARALLELISM, clock);
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() {
    release.countDown();
    executor.shutdownNow();
  }

  @Test
  void rejectsParallelismBelowOne() {
    assertThatThrownBy(() -> new DefaultExecutor("x", 0, clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parallelism");
  }

  @Test
  void runsTasksOnPoolWorkersWithoutGrowing() throws Exception {
    int tasks = 1_000;
    CountDownLatch done = new CountDownLatch(tasks);
    List<String> names = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < tasks; i++) {
      executor.execute(
          () -> {
            names.add(Thread.currentThread().getName());
            done.countDown();
          });
    }
    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(names).allMatch(name -> name.matches("test-default-\\d+"));
    assertThat(executor.poolSize()).isLessThanOrEqualTo(PARALLELISM);
    assertThat(executor.spillSize()).isZero();
  }

  @Test
  void workersBlockedWhereThePoolCannotSeeHaveTheirQueuedWorkSpilled() throws Exception {
    CountDownLatch workersHeld = new CountDownLatch(PARALLELISM);
    CountDownLatch started = new CountDownLatch(PARALLELISM + 1);
    CountDownLatch blockedDone = new CountDownLatch(PARALLELISM + 1);
    for (int i = 0; i < PARALLELISM + 1; i++) {
      executor.execute(
          () -> {
            workersHeld.countDown();
            started.countDown();
            awaitRelease(); // a latch: no managed blocking, so no compensation
            blockedDone.countDown();
          });
    }
    assertThat(workersHeld.await(30, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> other = new CompletableFuture<>();
    executor.execute(() -> other.complete(Thread.currentThread().getName()));

    // First look: records progress. Second look: no task finished while work was queued.
    clock.forwardTime(DefaultExecutor.STALL_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    clock.forwardTime(DefaultExecutor.STALL_CHECK_MILLIS, TimeUnit.MILLISECONDS);

    assertThat(other.get(30, TimeUnit.SECONDS)).startsWith("test-default-spill-");
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue(); // the third blocker ran, spilled
    CompletableFuture<String> whileStalled = new CompletableFuture<>();
    executor.execute(() -> whileStalled.complete(Thread.currentThread().getName()));
    assertThat(whileStalled.get(30, TimeUnit.SECONDS)).startsWith("test-default-spill-");

    release.countDown();
    assertThat(blockedDone.await(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void workersBlockedInThreadlessExecutorsAreCompensatedWithoutTheWatchdog() throws Exception {
    List<ThreadlessExecutor> waiting = new ArrayList<>();
    CountDownLatch done = new CountDownLatch(PARALLELISM);
    for (int i = 0; i < PARALLELISM; i++) {
      ThreadlessExecutor threadless = new ThreadlessExecutor();
      waiting.add(threadless);
      executor.execute(
          () -> {
            try {
              threadless.waitAndDrain(); // as a blocking stub called from a handler waits
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            done.countDown();
          });
    }
    CompletableFuture<String> other = new CompletableFuture<>();
    executor.execute(() -> other.complete(Thread.currentThread().getName()));

    // The clock never moves, so the watchdog never looks: only the pool's spare can run it.
    assertThat(other.get(30, TimeUnit.SECONDS)).matches("test-default-\\d+");
    assertThat(executor.spillSize()).isZero();

    for (ThreadlessExecutor threadless : waiting) {
      threadless.execute(() -> {});
    }
    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
  }

  private void awaitRelease() {
    try {
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
