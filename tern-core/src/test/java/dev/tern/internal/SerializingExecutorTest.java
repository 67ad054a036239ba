package dev.tern.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.spi.HandOff;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SerializingExecutorTest {

  private static final Logger executorLogger =
      Logger.getLogger(SerializingExecutor.class.getName());

  /** A delegate that holds dispatched runnables until the test runs them. */
  private final Queue<Runnable> dispatched = new ArrayDeque<>();

  private final Executor recordingDelegate = dispatched::add;
  private Level savedLevel;

  @BeforeEach
  void quietLogger() {
    // Some tests throw from tasks on purpose; keep the expected SEVERE records out of the output.
    savedLevel = executorLogger.getLevel();
    executorLogger.setLevel(Level.OFF);
  }

  @AfterEach
  void restoreLogger() {
    executorLogger.setLevel(savedLevel);
  }

  @Test
  void concurrentSubmittersNeverOverlapAndKeepTheirOrder() throws Exception {
    int submitters = 4;
    int tasksPerSubmitter = 2_500;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    ExecutorService submitterThreads = Executors.newFixedThreadPool(submitters);
    try {
      SerializingExecutor executor = new SerializingExecutor(pool);
      AtomicInteger running = new AtomicInteger();
      AtomicInteger overlaps = new AtomicInteger();
      // Plain lists: the executor's happens-before guarantee is what makes this safe.
      List<List<Integer>> seenBySubmitter = new ArrayList<>();
      for (int s = 0; s < submitters; s++) {
        seenBySubmitter.add(new ArrayList<>());
      }
      CountDownLatch allRan = new CountDownLatch(submitters * tasksPerSubmitter);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> submissions = new ArrayList<>();
      for (int s = 0; s < submitters; s++) {
        List<Integer> seen = seenBySubmitter.get(s);
        submissions.add(
            submitterThreads.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < tasksPerSubmitter; i++) {
                    int sequence = i;
                    executor.execute(
                        () -> {
                          if (running.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                          }
                          seen.add(sequence);
                          running.decrementAndGet();
                          allRan.countDown();
                        });
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> submission : submissions) {
        submission.get(30, TimeUnit.SECONDS);
      }

      assertThat(allRan.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(overlaps.get()).isZero();
      for (List<Integer> seen : seenBySubmitter) {
        assertThat(seen).hasSize(tasksPerSubmitter).isSorted();
      }
    } finally {
      submitterThreads.shutdownNow();
      pool.shutdownNow();
    }
  }

  @Test
  void aBurstOfSubmissionsCostsOneDispatchAndRunsInOrder() {
    SerializingExecutor executor = new SerializingExecutor(recordingDelegate);
    List<String> ran = new ArrayList<>();

    executor.execute(() -> ran.add("a"));
    executor.execute(() -> ran.add("b"));
    executor.execute(() -> ran.add("c"));

    assertThat(dispatched).hasSize(1);
    assertThat(ran).isEmpty();
    dispatched.poll().run();
    assertThat(ran).containsExactly("a", "b", "c");

    executor.execute(() -> ran.add("d"));
    assertThat(dispatched).hasSize(1);
    dispatched.poll().run();
    assertThat(ran).containsExactly("a", "b", "c", "d");
  }

  @Test
  void aThrowingTaskDoesNotStopTheNextOnes() {
    SerializingExecutor executor = new SerializingExecutor(Runnable::run);
    List<String> ran = new ArrayList<>();

    executor.execute(() -> ran.add("before"));
    executor.execute(
        () -> {
          throw new IllegalStateException("task failure");
        });
    executor.execute(() -> ran.add("after"));

    assertThat(ran).containsExactly("before", "after");
  }

  @Test
  void aThrowingTaskInTheMiddleOfABurstDoesNotStopTheRest() {
    SerializingExecutor executor = new SerializingExecutor(recordingDelegate);
    List<String> ran = new ArrayList<>();
    executor.execute(() -> ran.add("first"));
    executor.execute(
        () -> {
          throw new IllegalStateException("task failure");
        });
    executor.execute(() -> ran.add("third"));

    dispatched.poll().run();

    assertThat(ran).containsExactly("first", "third");
  }

  @Test
  void aTaskSubmittedFromATaskRunsAfterItNotInsideIt() {
    SerializingExecutor executor = new SerializingExecutor(Runnable::run);
    List<String> events = new ArrayList<>();

    executor.execute(
        () -> {
          events.add("outer start");
          executor.execute(() -> events.add("inner"));
          events.add("outer end");
        });

    assertThat(events).containsExactly("outer start", "outer end", "inner");
  }

  @Test
  void rejectionIsRethrownAndALaterSubmissionRetries() {
    AtomicInteger attempts = new AtomicInteger();
    Executor rejectsOnce =
        task -> {
          if (attempts.getAndIncrement() == 0) {
            throw new RejectedExecutionException("pool saturated");
          }
          task.run();
        };
    SerializingExecutor executor = new SerializingExecutor(rejectsOnce);
    List<String> ran = new ArrayList<>();

    assertThatThrownBy(() -> executor.execute(() -> ran.add("rejected")))
        .isInstanceOf(RejectedExecutionException.class)
        .hasMessage("pool saturated");
    executor.execute(() -> ran.add("accepted"));

    // The rejected task was reported to its submitter, so it must not run behind their back.
    assertThat(ran).containsExactly("accepted");
    assertThat(attempts.get()).isEqualTo(2);
  }

  @Test
  void withAHandOff_aRefusedDrainGivesItsQueuedTasksToTheHandlerAndNoneRuns() {
    List<HandOff.Task> handedOver = new ArrayList<>();
    List<String> ran = new ArrayList<>();
    List<List<Runnable>> dropped = new ArrayList<>();
    Executor refusing =
        task -> {
          throw new RejectedExecutionException("pool saturated");
        };
    SerializingExecutor executor =
        new SerializingExecutor(
            refusing,
            (delegate, task) -> handedOver.add(task),
            (e, tasks) -> {
              assertThat(e).hasMessage("pool saturated");
              dropped.add(tasks);
            });
    Runnable a = () -> ran.add("a");
    Runnable b = () -> ran.add("b");

    executor.execute(a); // hands a drain over, which the transport delivers later
    executor.execute(b); // joins it
    assertThat(handedOver).hasSize(1);
    HandOff.DIRECT.execute(refusing, handedOver.remove(0));

    assertThat(dropped).containsExactly(List.of(a, b));
    assertThat(ran).isEmpty();
    // Usable again: the next task hands a new drain over, which an accepting executor runs.
    executor.setExecutor(Runnable::run);
    executor.execute(() -> ran.add("c"));
    assertThat(handedOver).hasSize(1);
    handedOver.remove(0).run();
    assertThat(ran).containsExactly("c");
  }

  @Test
  void setHandOffMovesLaterDrainsToTheNewHandOff_andNeedsAnExecutorMadeWithOne() {
    List<String> ran = new ArrayList<>();
    List<HandOff.Task> gathered = new ArrayList<>();
    SerializingExecutor executor =
        new SerializingExecutor(Runnable::run, HandOff.DIRECT, (e, tasks) -> {});

    executor.execute(() -> ran.add("a")); // handed over at once
    executor.setHandOff((delegate, task) -> gathered.add(task));
    executor.execute(() -> ran.add("b")); // waits for the transport's batch

    assertThat(ran).containsExactly("a");
    assertThat(gathered).hasSize(1);
    gathered.remove(0).run();
    assertThat(ran).containsExactly("a", "b");
    SerializingExecutor without = new SerializingExecutor(Runnable::run);
    assertThatThrownBy(() -> without.setHandOff(HandOff.DIRECT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("made without a hand-off");
  }

  @Test
  void setExecutorMovesLaterDispatchesToTheNewDelegate() {
    Queue<Runnable> second = new ArrayDeque<>();
    SerializingExecutor executor = new SerializingExecutor(recordingDelegate);
    List<String> ran = new ArrayList<>();

    executor.setExecutor(second::add);
    executor.execute(() -> ran.add("x"));

    assertThat(dispatched).isEmpty();
    assertThat(second).hasSize(1);
    second.poll().run();
    assertThat(ran).containsExactly("x");
  }

  @Test
  void rejectsNulls() {
    assertThatThrownBy(() -> new SerializingExecutor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("delegate");
    SerializingExecutor executor = new SerializingExecutor(recordingDelegate);
    assertThatThrownBy(() -> executor.execute(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("task");
    assertThatThrownBy(() -> executor.setExecutor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("delegate");
    assertThat(dispatched).isEmpty();
  }
}
