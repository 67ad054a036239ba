package dev.tern.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Keeps what a class's logger logs, instead of printing it, while open. */
public final class LogCapture implements AutoCloseable {
  public final List<LogRecord> records = new CopyOnWriteArrayList<>();
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

  public LogCapture(Class<?> source) {
    this(source.getName());
  }

  /** For a class the test cannot name (package-private elsewhere): its logger's name. */
  public LogCapture(String loggerName) {
    logger = Logger.getLogger(loggerName);
    useParentHandlers = logger.getUseParentHandlers();
    logger.setUseParentHandlers(false);
    logger.addHandler(handler);
  }

  @Override
  public void close() {
    logger.removeHandler(handler);
    logger.setUseParentHandlers(useParentHandlers);
  }
}
