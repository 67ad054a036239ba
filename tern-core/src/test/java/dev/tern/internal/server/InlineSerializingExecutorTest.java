package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.internal.LogCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

class InlineSerializingExecutorTest {
  private final List<String> events = new ArrayList<>();

  /** Runs tasks at once, recording where each delegation starts and ends. */
  private final Executor recordingInline =
      task -> {
        events.add("delegate{");
        try {
          task.run();
        } finally {
          events.add("}");
        }
      };

  private final InlineSerializingExecutor executor = new InlineSerializingExecutor(recordingInline);

  @Test
  void runsATaskOnTheCallingThreadBeforeReturning() {
    Thread caller = Thread.currentThread();
    List<Thread> ranOn = new ArrayList<>();

    executor.execute(() -> ranOn.add(Thread.currentThread()));

    assertThat(ranOn).containsExactly(caller);
  }

  @Test
  void aTaskSubmittedFromATaskRunsAfterItInOrderWithinOneDelegation() {
    executor.execute(
        () -> {
          events.add("a");
          executor.execute(() -> events.add("b"));
          executor.execute(
              () -> {
                events.add("c");
                executor.execute(() -> events.add("e"));
              });
          events.add("a ends");
          executor.execute(() -> events.add("d"));
        });

    assertThat(events).containsExactly("delegate{", "a", "a ends", "b", "c", "d", "e", "}");
  }

  @Test
  void eachOuterSubmissionIsDelegatedOnItsOwn() {
    executor.execute(() -> events.add("a"));
    executor.execute(() -> events.add("b"));

    assertThat(events).containsExactly("delegate{", "a", "}", "delegate{", "b", "}");
  }

  @Test
  void aTaskThatThrowsIsLoggedAndTheTasksBehindItStillRun() {
    try (LogCapture log = new LogCapture(InlineSerializingExecutor.class)) {
      executor.execute(
          () -> {
            executor.execute(() -> events.add("behind"));
            throw new IllegalStateException("boom");
          });
      executor.execute(() -> events.add("next"));

      assertThat(events).containsExactly("delegate{", "behind", "}", "delegate{", "next", "}");
      assertThat(log.records).hasSize(1);
      assertThat(log.records.get(0).getLevel()).isEqualTo(Level.SEVERE);
      assertThat(log.records.get(0).getThrown()).hasMessage("boom");
    }
  }

  @Test
  void anErrorPropagatesAfterTheTasksBehindItRanAndTheExecutorStaysUsable() {
    AssertionError error = new AssertionError("fatal");
    AssertionError later = new AssertionError("later");

    assertThatThrownBy(
            () ->
                executor.execute(
                    () -> {
                      executor.execute(() -> events.add("behind"));
                      executor.execute(
                          () -> {
                            throw later;
                          });
                      executor.execute(() -> events.add("last"));
                      throw error;
                    }))
        .isSameAs(error);
    assertThat(error.getSuppressed()).containsExactly(later);
    assertThat(events).containsExactly("delegate{", "behind", "last", "}");

    events.clear();
    executor.execute(() -> events.add("after"));
    executor.execute(
        () -> {
          executor.execute(() -> events.add("nested after"));
          events.add("outer after");
        });
    assertThat(events)
        .containsExactly(
            "delegate{", "after", "}", "delegate{", "outer after", "nested after", "}");
  }
}
