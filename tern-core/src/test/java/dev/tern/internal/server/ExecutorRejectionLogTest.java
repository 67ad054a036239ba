package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.internal.LogCapture;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ExecutorRejectionLogTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final ExecutorRejectionLog log = new ExecutorRejectionLog(now::get);

  @Test
  void aThousandRejections_giveOneWarningWithTheException_untilTheIntervalEnds() {
    try (LogCapture logs = new LogCapture(ExecutorRejectionLog.class)) {
      for (int i = 0; i < 1000; i++) {
        log.rejected(new RejectedExecutionException("queue full " + i));
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
      }

      List<LogRecord> warnings = warnings(logs);
      assertThat(warnings).hasSize(1);
      assertThat(warnings.get(0).getMessage()).contains("rejected a call's task");
      assertThat(warnings.get(0).getThrown()).hasMessage("queue full 0");
    }
  }

  @Test
  void afterTheInterval_oneWarningCountsTheCallsCancelledSince() {
    try (LogCapture logs = new LogCapture(ExecutorRejectionLog.class)) {
      log.rejected(new RejectedExecutionException("first"));
      for (int i = 0; i < 41; i++) {
        log.rejected(new RejectedExecutionException("quiet"));
      }
      now.addAndGet(ExecutorRejectionLog.INTERVAL_NANOS + TimeUnit.SECONDS.toNanos(2));
      log.rejected(new RejectedExecutionException("latest"));

      List<LogRecord> warnings = warnings(logs);
      assertThat(warnings).hasSize(2);
      LogRecord summary = warnings.get(1);
      assertThat(summary.getParameters()[0]).isEqualTo(42L);
      assertThat(summary.getParameters()[1]).isEqualTo(12L);
      assertThat(summary.getParameters()[2].toString()).contains("latest");
    }
  }

  @Test
  void aRejectionAfterAQuietInterval_isLoggedInFullAgain() {
    try (LogCapture logs = new LogCapture(ExecutorRejectionLog.class)) {
      log.rejected(new RejectedExecutionException("one"));
      now.addAndGet(ExecutorRejectionLog.INTERVAL_NANOS);
      log.rejected(new RejectedExecutionException("two"));

      assertThat(warnings(logs).stream().map(r -> r.getThrown().getMessage()))
          .containsExactly("one", "two");
    }
  }

  private static List<LogRecord> warnings(LogCapture logs) {
    return logs.records.stream()
        .filter(r -> r.getLevel() == Level.WARNING)
        .collect(Collectors.toList());
  }
}
