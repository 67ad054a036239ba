package dev.tern.testing;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Deadline;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import org.junit.jupiter.api.Test;

class FakeClockTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void tasksRunInOrderOfDueTimeWhenTheClockReachesThem() {
    List<String> ran = new ArrayList<>();
    clock.schedule(() -> ran.add("late"), 2, SECONDS);
    clock.schedule(() -> ran.add("early"), 1, SECONDS);

    assertThat(clock.forwardTime(999, MILLISECONDS)).isZero();
    assertThat(ran).isEmpty();
    assertThat(clock.forwardTime(1, SECONDS)).isEqualTo(1);
    assertThat(ran).containsExactly("early");
    assertThat(clock.forwardTime(1, MILLISECONDS)).isEqualTo(1);
    assertThat(ran).containsExactly("early", "late");
    assertThat(clock.currentTimeNanos()).isEqualTo(SECONDS.toNanos(2));
  }

  @Test
  void pendingTasksAreListedEarliestFirstAndCancelledOnesLeave() {
    ScheduledFuture<?> late = clock.schedule(() -> {}, 5, SECONDS);
    ScheduledFuture<?> early = clock.schedule(() -> {}, 1, SECONDS);

    assertThat(clock.getPendingTasks()).containsExactly(early, late);
    assertThat(clock.getPendingTasks().iterator().next().getDelay(NANOSECONDS))
        .isEqualTo(SECONDS.toNanos(1));

    assertThat(early.cancel(false)).isTrue();
    assertThat(clock.getPendingTasks()).containsExactly(late);
  }

  @Test
  void executeQueuesUntilTheDueTasksRun() {
    List<String> ran = new ArrayList<>();
    clock.execute(() -> ran.add("task"));

    assertThat(ran).isEmpty();
    assertThat(clock.runDueTasks()).isEqualTo(1);
    assertThat(ran).containsExactly("task");
  }

  @Test
  void theTickerReadsTheClockAndWorksNearTheEndOfTheRange() {
    FakeClock nearMax = new FakeClock(Long.MAX_VALUE - 1_000);
    Deadline deadline = Deadline.after(1, SECONDS, nearMax.getTicker());

    nearMax.forwardNanos(SECONDS.toNanos(1) - 1);
    assertThat(deadline.isExpired()).isFalse();
    nearMax.forwardTime(1, NANOSECONDS);
    assertThat(deadline.isExpired()).isTrue();
    assertThat(nearMax.getTicker().nanoTime()).isEqualTo(nearMax.currentTimeNanos());
  }

  @Test
  void aScheduledTaskThatThrowsKeepsItsFailureInItsFutureByDefault() {
    ScheduledFuture<?> failing =
        clock.schedule(
            () -> {
              throw new IllegalStateException("timer failed");
            },
            1,
            SECONDS);

    assertThat(clock.forwardTime(1, SECONDS)).isEqualTo(1);
    assertThatThrownBy(failing::get)
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  @Test
  void withRethrowTaskFailuresAScheduledTaskThatThrowsFailsTheForwardThatRanIt() {
    clock.setRethrowTaskFailures(true);
    List<String> ran = new ArrayList<>();
    ScheduledFuture<?> failing =
        clock.schedule(
            () -> {
              throw new IllegalStateException("timer failed");
            },
            1,
            SECONDS);
    clock.schedule(() -> ran.add("later"), 2, SECONDS);

    assertThatThrownBy(() -> clock.forwardTime(3, SECONDS))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("timer failed");
    // The failure is in the future too, and the later task is still pending.
    assertThatThrownBy(failing::get).hasCauseInstanceOf(IllegalStateException.class);
    assertThat(ran).isEmpty();
    assertThat(clock.numPendingTasks()).isEqualTo(1);
    assertThat(clock.forwardTime(1, SECONDS)).isEqualTo(1);
    assertThat(ran).containsExactly("later");
  }

  @Test
  void withRethrowTaskFailuresAPeriodicTaskThatThrowsStopsAndFails() {
    clock.setRethrowTaskFailures(true);
    int[] runs = new int[1];
    ScheduledFuture<?> periodic =
        clock.scheduleAtFixedRate(
            () -> {
              if (++runs[0] == 2) {
                throw new IllegalArgumentException("second run failed");
              }
            },
            1,
            1,
            SECONDS);

    assertThatThrownBy(() -> clock.forwardTime(5, SECONDS))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(runs[0]).isEqualTo(2);
    assertThat(periodic.isDone()).isTrue();
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void rethrowTaskFailuresCanBeTurnedOffAgain() {
    clock.setRethrowTaskFailures(true);
    clock.setRethrowTaskFailures(false);
    clock.schedule(
        () -> {
          throw new IllegalStateException("kept in the future");
        },
        0,
        SECONDS);

    assertThat(clock.runDueTasks()).isEqualTo(1);
  }
}
