package dev.tern.xds;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Keeps a logger's records from the console while a test that provokes them on purpose runs, and
 * lets the test check them. Close to give the logger back.
 *
 * <p>Thread-safe: records arrive on the client's threads and are read by the test's.
 */
final class CapturedLogs extends Handler implements AutoCloseable {
  private final Logger logger;
  private final boolean useParentHandlers;
  private final List<LogRecord> records = new ArrayList<>();

  private CapturedLogs(Logger logger) {
    this.logger = logger;
    this.useParentHandlers = logger.getUseParentHandlers();
  }

  static CapturedLogs of(Class<?> loggerClass) {
    CapturedLogs logs = new CapturedLogs(Logger.getLogger(loggerClass.getName()));
    logs.setLevel(Level.ALL);
    logs.logger.addHandler(logs);
    logs.logger.setUseParentHandlers(false);
    return logs;
  }

  @Override
  public synchronized void publish(LogRecord record) {
    records.add(record);
  }

  /** The formatted messages so far. */
  synchronized List<String> messages() {
    List<String> out = new ArrayList<>();
    java.util.logging.Formatter formatter = new java.util.logging.SimpleFormatter();
    for (LogRecord r : records) {
      out.add(formatter.formatMessage(r));
    }
    return out;
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    logger.removeHandler(this);
    logger.setUseParentHandlers(useParentHandlers);
  }
}
