package dev.tern.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
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
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  /** Starts capturing what the logger named after {@code source} logs. */
  public LogCapture(Class<?> source) {
    logger = Logger.getLogger(source.getName());
    useParentHandlers = logger.getUseParentHandlers();
    logger.setUseParentHandlers(false);
    logger.addHandler(handler);
  }

  /** What was logged so far, oldest first (a live view). */
  public List<LogRecord> records() {
    return records;
  }

  /** Stops capturing; the logger prints as before. */
  @Override
  public void close() {
    logger.removeHandler(handler);
    logger.setUseParentHandlers(useParentHandlers);
  }
}
