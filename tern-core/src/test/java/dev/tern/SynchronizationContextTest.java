package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SynchronizationContextTest {
  private final List<Throwable> thrown = new CopyOnWriteArrayList<>();
  private final SynchronizationContext context =
      new SynchronizationContext((thread, error) -> thrown.add(error));
  private final List<String> log = new CopyOnWriteArrayList<>();

  @Test
  void tasksRunInSubmissionOrderOnTheSubmittingThread() {
    List<Thread> threads = new ArrayList<>();

    context.execute(() -> log.add("one"));
    context.execute(
        () -> {
          threads.add(Thread.currentThread());
          log.add("two");
        });

    assertThat(log).containsExactly("one", "two");
    assertThat(threads).containsExactly(Thread.currentThread());
  }

  @Test
  void aTaskSubmittedFromATaskRunsAfterItNeverNested() {
    context.execute(
        () -> {
          log.add("outer start");
          context.execute(() -> log.add("inner"));
          log.add("outer end");
        });

    assertThat(log).containsExactly("outer start", "outer end", "inner");
  }

  @Test
  void executeLaterWaitsForADrain() {
    context.executeLater(() -> log.add("later"));
    assertThat(log).isEmpty();

    context.drain();

    assertThat(log).containsExactly("later");
  }

  @Test
  void aTaskThatThrowsGoesToTheHandlerAndTheOthersStillRun() {
    IllegalStateException boom = new IllegalStateException("boom");
    context.executeLater(
        () -> {
          throw boom;
        });
    context.executeLater(() -> log.add("after"));

    context.drain();

    assertThat(thrown).containsExactly(boom);
    assertThat(log).containsExactly("after");
  }

  @Test
  void whileAnotherThreadDrainsATaskIsQueuedForThatThread() throws Exception {
    CountDownLatch inTask = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> ranOn = new CopyOnWriteArrayList<>();
    Thread drainer =
        new Thread(
            () ->
                context.execute(
                    () -> {
                      inTask.countDown();
                      await(release);
                    }));
    drainer.start();
    assertThat(inTask.await(10, TimeUnit.SECONDS)).isTrue();

    context.execute(() -> ranOn.add(Thread.currentThread()));
    assertThat(ranOn).as("not run by the submitting thread").isEmpty();

    release.countDown();
    drainer.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(ranOn).containsExactly(drainer);
  }

  @Test
  void throwIfNotInThisSynchronizationContextPassesOnlyInsideIt() {
    assertThatThrownBy(context::throwIfNotInThisSynchronizationContext)
        .isInstanceOf(IllegalStateException.class);

    context.execute(context::throwIfNotInThisSynchronizationContext);
    SynchronizationContext other = new SynchronizationContext((thread, error) -> {});
    context.execute(other::throwIfNotInThisSynchronizationContext);

    assertThat(thrown).hasSize(1);
    assertThat(thrown.get(0)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void scheduledTaskRunsInTheContextAfterItsDelay() {
    FakeClock clock = new FakeClock();
    List<Boolean> inContext = new ArrayList<>();

    SynchronizationContext.ScheduledHandle handle =
        context.schedule(
            () -> {
              context.throwIfNotInThisSynchronizationContext();
              inContext.add(true);
            },
            5,
            TimeUnit.SECONDS,
            clock);

    clock.forwardNanos(TimeUnit.SECONDS.toNanos(5) - 1);
    assertThat(inContext).isEmpty();
    assertThat(handle.isPending()).isTrue();
    clock.forwardNanos(1);
    assertThat(inContext).containsExactly(true);
    assertThat(handle.isPending()).isFalse();
    assertThat(thrown).isEmpty();
  }

  @Test
  void cancelledScheduledTaskNeverRuns() {
    FakeClock clock = new FakeClock();
    SynchronizationContext.ScheduledHandle handle =
        context.schedule(() -> log.add("ran"), 1, TimeUnit.SECONDS, clock);

    handle.cancel();

    assertThat(handle.isPending()).isFalse();
    assertThat(clock.numPendingTasks()).isZero();
    clock.forwardTime(1, TimeUnit.MINUTES);
    assertThat(log).isEmpty();
  }

  @Test
  void cancellingFromInsideTheContextStopsATaskThatIsAlreadyDueButQueued() {
    FakeClock clock = new FakeClock();
    List<SynchronizationContext.ScheduledHandle> handle = new ArrayList<>();
    // The timer fires while the context is busy: the task is queued, then cancelled before it runs.
    context.execute(
        () -> {
          handle.add(context.schedule(() -> log.add("ran"), 1, TimeUnit.SECONDS, clock));
          clock.forwardTime(1, TimeUnit.SECONDS);
          handle.get(0).cancel();
        });

    assertThat(log).isEmpty();
    assertThat(handle.get(0).isPending()).isFalse();
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
