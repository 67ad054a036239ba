package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The soak loop's rules, on a fake clock that each iteration advances by the time it "takes". */
class SoakCaseTest {
  private final AtomicLong now = new AtomicLong();
  private final AtomicInteger calls = new AtomicInteger();

  private SoakConfig config(int iterations, int maxFailures, int overallSeconds, int threads) {
    return new SoakConfig(iterations, maxFailures, 1000, overallSeconds, 0, 10, 10, threads);
  }

  /**
   * An iteration that takes {@code millis} on the fake clock, and throws every {@code failEvery}th
   * call.
   */
  private SoakCase.Iteration taking(long millis, int failEvery) {
    return () -> {
      now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
      if (failEvery > 0 && calls.incrementAndGet() % failEvery == 0) {
        throw new IllegalStateException("call " + calls.get() + " failed");
      }
    };
  }

  @Test
  void everyIterationFastAndOkPasses() throws Exception {
    String summary = SoakCase.run(config(10, 0, 100, 1), taking(5, 0), now::get);
    assertThat(summary).startsWith("10 of 10 iterations ran, 0 failed (0 over 1000 ms)");
  }

  @Test
  void oneSlowIterationFailsTheCaseWhenNoFailureIsTolerated() {
    AtomicInteger n = new AtomicInteger();
    SoakCase.Iteration slowFifth =
        () -> now.addAndGet(TimeUnit.MILLISECONDS.toNanos(n.incrementAndGet() == 5 ? 1500 : 5));
    assertThatThrownBy(() -> SoakCase.run(config(10, 0, 100, 1), slowFifth, now::get))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("1 failed (1 over 1000 ms), slowest 1500 ms")
        .hasMessageContaining("more than soak_max_failures=0");
  }

  @Test
  void errorsUpToMaxFailuresPassAndOneMoreFails() throws Exception {
    assertThat(SoakCase.run(config(10, 2, 100, 1), taking(5, 5), now::get))
        .contains("2 failed (0 over 1000 ms)")
        .contains("first error: java.lang.IllegalStateException: call 5 failed");
    calls.set(0);
    assertThatThrownBy(() -> SoakCase.run(config(10, 1, 100, 1), taking(5, 5), now::get))
        .hasMessageContaining("2 failed")
        .hasMessageContaining("more than soak_max_failures=1");
  }

  @Test
  void iterationsLeftWhenTheOverallTimeoutPassesFailTheCase() {
    assertThatThrownBy(() -> SoakCase.run(config(10, 0, 2, 1), taking(500, 0), now::get))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("4 of 10 iterations ran, 0 failed")
        .hasMessageContaining("soak_overall_timeout_seconds=2 passed first");
  }

  @Test
  void threadsShareTheIterations() throws Exception {
    String summary = SoakCase.run(config(7, 0, 100, 3), taking(1, 0), now::get);
    assertThat(summary).startsWith("7 of 7 iterations ran");
  }

  @Test
  void badSettingsNameTheirFlag() {
    assertThatThrownBy(() -> config(0, 0, 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("soak_iterations must be >= 1, was 0");
    assertThatThrownBy(() -> config(2, 0, 1, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("soak_num_threads (3) must not exceed soak_iterations (2)");
  }
}
