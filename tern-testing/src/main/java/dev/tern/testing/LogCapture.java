package dev.tern.testing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Keeps what one class's logger logs, instead of printing it, while open: tests that fail things on
 * purpose assert the log they expect rather than print stack traces.
 *
 * <pre>{@code
 * try (LogCapture log = new LogCapture(HealthCheckedSubchannel.class)) {
 *   ...
 *   assertThat(log.records()).singleElement().extracting(LogRecord::getLevel).isEqualTo(WARNING);
 * }
 * }</pre>
 *
 * <p>Thread-safe: records arrive from any thread.
 */
public final class LogCapture implements AutoCloseable {
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Logger logger;
  private final boolean useParentHandlers;
  private final Level level;
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          records.add(record);
          synchronized (records) {
            records.notifyAll();
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  /** Starts capturing what the logger named after {@code source} logs. */
  public LogCapture(Class<?> source) {
    this(source.getName(), null);
  }

  /**
   * Starts capturing what the logger named {@code loggerName} logs at {@code level} and above (for
   * FINE records, which the default configuration drops); {@link #close} restores the logger's
   * level.
   *
   * @param level the logger's level while capturing, or null to leave it as it is
   */
  public LogCapture(String loggerName, Level level) {
    logger = Logger.getLogger(loggerName);
    this.level = logger.getLevel();
    if (level != null) {
      logger.setLevel(level);
    }
    useParentHandlers = logger.getUseParentHandlers();
    logger.setUseParentHandlers(false);
    logger.addHandler(handler);
  }

  /** What was logged so far, oldest first (a live view). */
  public List<LogRecord> records() {
    return records;
  }

  /**
   * Waits until a record matching {@code test} has been logged (another thread may log it), for at
   * most {@code timeout}.
   *
   * @return the first matching record
   * @throws AssertionError if none arrived in time
   */
  public LogRecord awaitRecord(Predicate<LogRecord> test, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (records) {
      while (true) {
        for (LogRecord record : records) {
          if (test.test(record)) {
            return record;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(
              "no matching record from " + logger.getName() + " within " + timeout);
        }
        records.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** Stops capturing; the logger prints as before. */
  @Override
  public void close() {
    logger.removeHandler(handler);
    logger.setUseParentHandlers(useParentHandlers);
    logger.setLevel(level);
  }
}
