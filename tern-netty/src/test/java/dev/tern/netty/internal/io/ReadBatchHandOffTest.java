package dev.tern.netty.internal.io;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.spi.HandOff;
import io.netty.channel.DefaultEventLoop;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadBatchHandOffTest {
  private final DefaultEventLoop loop = new DefaultEventLoop();
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  /** Who called the executor's {@code execute}, in order. */
  private final List<Thread> callers = Collections.synchronizedList(new ArrayList<>());

  private final ForkJoinPool countingForkJoinPool =
      new ForkJoinPool(2) {
        @Override
        public void execute(Runnable command) {
          callers.add(Thread.currentThread());
          super.execute(command);
        }
      };

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    countingForkJoinPool.shutdownNow();
    assertThat(countingForkJoinPool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(loop.terminationFuture().await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void tasksHandedOverDuringALoopTaskReachAWorkStealingPoolOnceAfterIt() throws Exception {
    List<Task> tasks = List.of(new Task(), new Task(), new Task());
    Thread loopThread = handOverOnTheLoop(countingForkJoinPool, tasks);

    for (Task task : tasks) {
      task.awaitRun();
    }
    // One hand-over from the loop; the pool's own threads passed the rest along.
    assertThat(callers).hasSize(3);
    assertThat(callers.stream().filter(loopThread::equals)).hasSize(1);
  }

  @Test
  void anyOtherExecutorGetsTheBatchTaskByTaskAfterIt() throws Exception {
    List<Task> tasks = List.of(new Task(), new Task(), new Task());
    Thread loopThread = handOverOnTheLoop(this::countedPool, tasks);

    for (Task task : tasks) {
      task.awaitRun();
    }
    // A bounded queue behind such an executor still sees each call.
    assertThat(callers).containsExactly(loopThread, loopThread, loopThread);
  }

  @Test
  void aFullBatchIsHandedOverInTheMiddleOfTheLoopsWork() throws Exception {
    List<Task> tasks = new ArrayList<>();
    for (int i = 0; i < ReadBatchHandOff.MAX_BATCH + 1; i++) {
      tasks.add(new Task());
    }
    int handedDuringTheReads =
        loop.submit(
                () -> {
                  HandOff handOff = ReadBatchHandOff.of(loop);
                  for (Task task : tasks) {
                    handOff.execute(countingForkJoinPool, task);
                  }
                  // (The pool's threads pass the chain along meanwhile: count the loop's calls.)
                  synchronized (callers) {
                    return (int) callers.stream().filter(Thread.currentThread()::equals).count();
                  }
                })
            .get(10, TimeUnit.SECONDS);

    for (Task task : tasks) {
      task.awaitRun();
    }
    // The first MAX_BATCH went over at once, so the executor keeps up with a long read; the last
    // one waited for the end of the loop's work.
    assertThat(handedDuringTheReads).isEqualTo(1);
    assertThat(callers).hasSize(tasks.size());
  }

  @Test
  void offTheLoopATaskIsHandedOverAtOnce() throws Exception {
    HandOff loopsOwn = loop.submit(() -> ReadBatchHandOff.of(loop)).get(10, TimeUnit.SECONDS);
    Task viaLoopsOwn = new Task();
    Task viaOf = new Task();

    loopsOwn.execute(this::countedPool, viaLoopsOwn);
    ReadBatchHandOff.of(loop).execute(this::countedPool, viaOf);

    assertThat(ReadBatchHandOff.of(loop)).isSameAs(HandOff.DIRECT);
    assertThat(callers).containsExactly(Thread.currentThread(), Thread.currentThread());
    viaLoopsOwn.awaitRun();
    viaOf.awaitRun();
  }

  @Test
  void aRefusingExecutorTellsEachTaskOnTheLoopAndRunsNone() throws Exception {
    List<Task> tasks = List.of(new Task(), new Task());
    Thread loopThread =
        loop.submit(
                () -> {
                  HandOff handOff = ReadBatchHandOff.of(loop);
                  for (Task task : tasks) {
                    handOff.execute(
                        command -> {
                          throw new RejectedExecutionException("pool is full");
                        },
                        task);
                  }
                  return Thread.currentThread();
                })
            .get(10, TimeUnit.SECONDS);

    for (Task task : tasks) {
      assertThat(task.awaitRejection()).isSameAs(loopThread);
      assertThat(task.ran.getCount()).isEqualTo(1);
    }
  }

  @Test
  void aRefusalPartWayThroughTheBatchTellsTheRestOnTheLoop() throws Exception {
    AtomicInteger accepted = new AtomicInteger();
    ForkJoinPool acceptingOnce =
        new ForkJoinPool(1) {
          @Override
          public void execute(Runnable command) {
            if (accepted.getAndIncrement() > 0) {
              throw new RejectedExecutionException("shutting down");
            }
            super.execute(command);
          }
        };
    List<Task> tasks = List.of(new Task(), new Task(), new Task());
    Thread loopThread;
    try {
      loopThread = handOverOnTheLoop(acceptingOnce, tasks);
      tasks.get(0).awaitRun();
    } finally {
      acceptingOnce.shutdown();
    }

    assertThat(tasks.get(1).awaitRejection()).isSameAs(loopThread);
    assertThat(tasks.get(2).awaitRejection()).isSameAs(loopThread);
    assertThat(tasks.get(1).ran.getCount()).isEqualTo(1);
    assertThat(tasks.get(2).ran.getCount()).isEqualTo(1);
  }

  @Test
  void aBatchRunsSideBySideOnAnExecutorOfManyThreads() throws Exception {
    // Each task waits for the other: the batch completes only if two threads run it at once.
    CountDownLatch both = new CountDownLatch(2);
    List<Task> tasks = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      tasks.add(
          new Task(
              () -> {
                both.countDown();
                return both.await(10, TimeUnit.SECONDS);
              }));
    }
    handOverOnTheLoop(countingForkJoinPool, tasks);

    for (Task task : tasks) {
      task.awaitRun();
      assertThat(task.outcome).isTrue();
    }
  }

  /** Hands {@code tasks} to {@code executor} from one task on the loop; returns the loop thread. */
  private Thread handOverOnTheLoop(Executor executor, List<Task> tasks) throws Exception {
    return loop.submit(
            () -> {
              HandOff handOff = ReadBatchHandOff.of(loop);
              for (Task task : tasks) {
                handOff.execute(executor, task);
              }
              assertThat(callers).isEmpty(); // nothing handed over during the loop's work
              return Thread.currentThread();
            })
        .get(10, TimeUnit.SECONDS);
  }

  private void countedPool(Runnable command) {
    callers.add(Thread.currentThread());
    pool.execute(command);
  }

  /** A task that records whether it ran, with what outcome, and where a refusal reached it. */
  private static final class Task implements HandOff.Task {
    private final Callable<Boolean> body;
    final CountDownLatch ran = new CountDownLatch(1);
    private final CountDownLatch refused = new CountDownLatch(1);
    volatile boolean outcome;
    private volatile Thread rejectedOn;

    Task() {
      this(() -> true);
    }

    Task(Callable<Boolean> body) {
      this.body = body;
    }

    @Override
    public void run() {
      try {
        outcome = body.call();
      } catch (Exception e) {
        outcome = false;
      }
      ran.countDown();
    }

    @Override
    public void rejected(RejectedExecutionException e) {
      rejectedOn = Thread.currentThread();
      refused.countDown();
    }

    void awaitRun() throws InterruptedException {
      assertThat(ran.await(10, TimeUnit.SECONDS)).as("the task ran").isTrue();
    }

    Thread awaitRejection() throws InterruptedException {
      assertThat(refused.await(10, TimeUnit.SECONDS)).as("the refusal reached the task").isTrue();
      return rejectedOn;
    }
  }
}
