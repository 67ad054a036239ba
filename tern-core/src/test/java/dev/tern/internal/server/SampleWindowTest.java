package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A window of the adaptive limit's samples: filled once, by exactly one caller, and read for what
 * the limit decides from.
 */
class SampleWindowTest {
  private static final long MS = 1_000_000;

  @Test
  void theSampleThatFillsTheWindow_isTheOnlyOneToldSo_andLaterSamplesAreDropped() {
    SampleWindow window = new SampleWindow();
    for (int i = 1; i < SampleWindow.SIZE; i++) {
      assertThat(window.add(MS, 1, 1, false, -1)).isFalse();
    }
    assertThat(window.add(MS, 1, 1, false, -1)).isTrue();

    assertThat(window.add(1_000 * MS, 99, 99, true, -1)).isFalse();
    assertThat(window.busiest()).isEqualTo(1);
    assertThat(window.lateCount()).isZero();
    assertThat(window.meanLatency()).isEqualTo(MS);
  }

  @Test
  void manyThreadsAdding_fillTheWindowOnce() throws Exception {
    SampleWindow window = new SampleWindow();
    int threads = 4;
    AtomicInteger filled = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      Future<?>[] adders = new Future<?>[threads];
      for (int t = 0; t < threads; t++) {
        adders[t] =
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < SampleWindow.SIZE; i++) {
                    if (window.add(MS, 1, 1, false, -1)) {
                      filled.incrementAndGet();
                    }
                  }
                  return null;
                });
      }
      start.countDown();
      for (Future<?> adder : adders) {
        adder.get(10, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(filled).hasValue(1);
  }

  @Test
  void figures_areReadFromTheSamples() {
    SampleWindow window = new SampleWindow();
    // Half the calls took 1 ms with 2 in progress, half 3 ms with 6 in progress (4 as they began);
    // the slow ones were late.
    for (int i = 0; i < SampleWindow.SIZE / 2; i++) {
      window.add(MS, 2, 2, false, -1);
    }
    for (int i = 0; i < SampleWindow.SIZE / 2; i++) {
      window.add(3 * MS, 6, 4, true, -1);
    }

    assertThat(window.median()).isEqualTo(3 * MS);
    assertThat(window.busiest()).isEqualTo(6);
    assertThat(window.lateCount()).isEqualTo(SampleWindow.SIZE / 2);
    assertThat(window.meanLatency()).isEqualTo(2 * MS);
    assertThat(window.meanInProgress()).isEqualTo(4);
    // Only the fast calls ended in time: the most in progress as one of them began.
    assertThat(window.busiestInTime(2 * MS)).isEqualTo(2);
    // Late calls are always at risk; the others had no deadline.
    assertThat(window.atRisk(0.05)).isEqualTo(SampleWindow.SIZE / 2);
  }

  @Test
  void aCallIsAtRisk_whenItsWaitAtTheQueuesPaceReachesTheShareOfItsDeadline() {
    SampleWindow window = new SampleWindow();
    // 10 ms each, 100 ms deadlines: a tenth of the deadline, at risk at a share of 0.1 but not
    // 0.2; with the queue doubled while it ran (2 in progress as it began, 4 as it ended) the
    // wait of a call arriving then is 20 ms, at risk at 0.2 too.
    for (int i = 0; i < SampleWindow.SIZE / 2; i++) {
      window.add(10 * MS, 2, 2, false, 100 * MS);
    }
    for (int i = 0; i < SampleWindow.SIZE / 2; i++) {
      window.add(10 * MS, 4, 2, false, 100 * MS);
    }

    assertThat(window.atRisk(0.1)).isEqualTo(SampleWindow.SIZE);
    assertThat(window.atRisk(0.2)).isEqualTo(SampleWindow.SIZE / 2);
    assertThat(window.atRisk(0.3)).isZero();
  }
}
