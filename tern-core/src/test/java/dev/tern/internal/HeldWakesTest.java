package dev.tern.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Wake-ups a default-executor worker holds: run as its task ends, by a tick when the task runs on
 * (on a fake clock, so the test decides when ticks happen), and before Tern's own blocking waits.
 */
@Timeout(60)
class HeldWakesTest {
  private final FakeClock clock = new FakeClock();
  private final DefaultExecutor executor = new DefaultExecutor("test-held", 1, clock);
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() {
    release.countDown();
    executor.shutdownNow();
  }

  @Test
  void aHeldWakeRunsWhenItsTaskEnds() throws Exception {
    TestWake wake = new TestWake();
    CompletableFuture<Integer> runsInsideTask = new CompletableFuture<>();
    executor.execute(
        () -> {
          HeldWakes.Worker worker = HeldWakes.holder();
          wake.hold(worker);
          runsInsideTask.complete(wake.runs.get());
        });

    assertThat(runsInsideTask.get(10, TimeUnit.SECONDS)).isZero();
    assertThat(wake.woken.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(wake.runs).hasValue(1);
  }

  @Test
  void aTaskThatBlocksHasItsWakeRunByTheSecondTick() throws Exception {
    TestWake wake = new TestWake();
    CountDownLatch held = new CountDownLatch(1);
    CompletableFuture<Boolean> holdsAfterTheTick = new CompletableFuture<>();
    executor.execute(
        () -> {
          wake.hold(HeldWakes.holder());
          held.countDown();
          awaitQuietly(release);
          holdsAfterTheTick.complete(HeldWakes.holder() != null);
        });
    assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();

    clock.forwardTime(HeldWakes.TICK_MICROS, TimeUnit.MICROSECONDS);
    assertThat(wake.runs).as("the first tick only notes the hold").hasValue(0);
    clock.forwardTime(HeldWakes.TICK_MICROS, TimeUnit.MICROSECONDS);
    assertThat(wake.runs).as("held across two ticks: woken").hasValue(1);

    release.countDown();
    assertThat(holdsAfterTheTick.get(10, TimeUnit.SECONDS))
        .as("a task whose hold a tick woke holds no more")
        .isFalse();
    // The task's end finds it woken: it does not wake it again.
    awaitEarlierTasks();
    assertThat(wake.runs).hasValue(1);
  }

  @Test
  void theTickStopsOnceNothingIsHeld() throws Exception {
    TestWake wake = new TestWake();
    executor.execute(() -> wake.hold(HeldWakes.holder()));
    assertThat(wake.woken.await(10, TimeUnit.SECONDS)).isTrue();
    awaitEarlierTasks();

    clock.forwardTime(HeldWakes.TICK_MICROS, TimeUnit.MICROSECONDS);
    clock.forwardTime(HeldWakes.TICK_MICROS, TimeUnit.MICROSECONDS);
    // Left: the default executor's watchdog only, no tick.
    assertThat(clock.getPendingTasks()).allMatch(task -> task.getDelay(TimeUnit.MILLISECONDS) > 1);
    assertThat(wake.runs).hasValue(1);
  }

  @Test
  void onlyAWorkerInsideATaskHolds() throws Exception {
    assertThat(HeldWakes.holder()).as("the test's own thread").isNull();
    CompletableFuture<Boolean> holdsWithRoom = new CompletableFuture<>();
    CompletableFuture<Boolean> holdsWhenFull = new CompletableFuture<>();
    List<TestWake> wakes = new ArrayList<>();
    executor.execute(
        () -> {
          holdsWithRoom.complete(HeldWakes.holder() != null);
          for (int i = 0; i < HeldWakes.MAX_HELD; i++) {
            TestWake wake = new TestWake();
            wakes.add(wake);
            wake.hold(HeldWakes.holder());
          }
          holdsWhenFull.complete(HeldWakes.holder() != null);
        });

    assertThat(holdsWithRoom.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(holdsWhenFull.get(10, TimeUnit.SECONDS)).isFalse();
    for (TestWake wake : wakes) {
      assertThat(wake.woken.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aPoolOfMoreThanOneWorkerHoldsNothing() throws Exception {
    DefaultExecutor two = new DefaultExecutor("test-two", 2, clock);
    try {
      CompletableFuture<Boolean> holds = new CompletableFuture<>();
      two.execute(() -> holds.complete(HeldWakes.holder() != null));
      assertThat(holds.get(10, TimeUnit.SECONDS)).isFalse();
    } finally {
      two.shutdownNow();
    }
  }

  @Test
  void aBlockingWaitRunsWhatItsThreadHeldFirst() throws Exception {
    // The held wake-up is what answers the wait: without waking it first, the wait never ends (the
    // fake clock never ticks).
    ThreadlessExecutor answers = new ThreadlessExecutor();
    AtomicBoolean answered = new AtomicBoolean();
    TestWake wake = new TestWake(() -> answers.execute(() -> answered.set(true)));
    CountDownLatch done = new CountDownLatch(1);
    executor.execute(
        () -> {
          wake.hold(HeldWakes.holder());
          try {
            answers.waitAndDrain();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          done.countDown();
        });

    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(answered).isTrue();
  }

  @Test
  void aTimerThatRefusesTicksMeansNothingIsHeld() throws Exception {
    ScheduledExecutorService stopped = Executors.newSingleThreadScheduledExecutor();
    stopped.shutdown();
    DefaultExecutor unbounded = new DefaultExecutor("test-unbounded", 1, stopped);
    try {
      TestWake wake = new TestWake();
      CompletableFuture<Integer> runsInsideTask = new CompletableFuture<>();
      CompletableFuture<Boolean> holdsAfter = new CompletableFuture<>();
      unbounded.execute(
          () -> {
            wake.hold(HeldWakes.holder());
            runsInsideTask.complete(wake.runs.get());
            holdsAfter.complete(HeldWakes.holder() != null);
          });

      assertThat(runsInsideTask.get(10, TimeUnit.SECONDS)).as("woken at once").isEqualTo(1);
      assertThat(holdsAfter.get(10, TimeUnit.SECONDS)).isFalse();
    } finally {
      unbounded.shutdownNow();
    }
  }

  /** Waits until the one worker finished the tasks given before. */
  private void awaitEarlierTasks() throws InterruptedException {
    CountDownLatch after = new CountDownLatch(1);
    executor.execute(after::countDown);
    assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A wake-up as a transport's write queue has one: held once, woken at most once per hold. */
  private static final class TestWake implements HeldWakes.Wake {
    final AtomicBoolean held = new AtomicBoolean();
    final AtomicInteger runs = new AtomicInteger();
    final CountDownLatch woken = new CountDownLatch(1);
    private final Runnable action;

    TestWake() {
      this(() -> {});
    }

    TestWake(Runnable action) {
      this.action = action;
    }

    void hold(HeldWakes.Worker worker) {
      held.set(true);
      worker.hold(this);
    }

    @Override
    public void wakeHeld() {
      if (held.compareAndSet(true, false)) {
        runs.incrementAndGet();
        action.run();
        woken.countDown();
      }
    }
  }
}
