package dev.tern.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReusingThreadPoolTest {
  private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
  private final ThreadFactory factory =
      task -> {
        Thread thread = new Thread(task, "reusing-pool-test");
        thread.setDaemon(true);
        thread.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        return thread;
      };

  @Test
  void noMoreThanMaxThreadsRunAtOnce_theRestWaitAndAllRun() throws Exception {
    ReusingThreadPool pool = new ReusingThreadPool(2, 60, TimeUnit.SECONDS, factory);
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CountDownLatch twoStarted = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(5);
    for (int i = 0; i < 5; i++) {
      pool.execute(
          () -> {
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
            twoStarted.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            now.decrementAndGet();
            done.countDown();
          });
    }
    assertThat(twoStarted.await(10, TimeUnit.SECONDS)).isTrue();
    release.countDown();

    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(most).hasValue(2);
  }

  @Test
  void aTaskGoesToTheIdleThreadInsteadOfANewOne() throws Exception {
    ReusingThreadPool pool = new ReusingThreadPool(8, 60, TimeUnit.SECONDS, factory);
    Thread first = runAndGetThread(pool);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (first.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
      Thread.onSpinWait(); // until it waits for the next hand-off
    }
    assertThat(first.getState()).isEqualTo(Thread.State.TIMED_WAITING);

    assertThat(runAndGetThread(pool)).isSameAs(first);
    assertThat(pool.threadCount()).isEqualTo(1);
  }

  @Test
  void aTaskThatThrowsIsReported_andThePoolGoesOn() throws Exception {
    ReusingThreadPool pool = new ReusingThreadPool(1, 60, TimeUnit.SECONDS, factory);
    pool.execute(
        () -> {
          throw new IllegalStateException("handler failed");
        });
    CountDownLatch ran = new CountDownLatch(2);
    pool.execute(ran::countDown);
    pool.execute(ran::countDown);

    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(uncaught).hasSize(1);
    assertThat(uncaught.get(0)).hasMessage("handler failed");
  }

  @Test
  void badArgumentsAreRefusedByName() {
    assertThatThrownBy(() -> new ReusingThreadPool(0, 60, TimeUnit.SECONDS, factory))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxThreads");
    ReusingThreadPool pool = new ReusingThreadPool(1, 60, TimeUnit.SECONDS, factory);
    assertThatThrownBy(() -> pool.execute(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("task");
  }

  private static Thread runAndGetThread(ReusingThreadPool pool) throws InterruptedException {
    Thread[] ran = new Thread[1];
    CountDownLatch done = new CountDownLatch(1);
    pool.execute(
        () -> {
          ran[0] = Thread.currentThread();
          done.countDown();
        });
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    return ran[0];
  }
}
