package dev.tern.grpcjava.internal.convert;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A grpc-java {@code ChannelLogger} (what grpc-java's resolvers and balancers log through) writing
 * to a {@link java.util.logging.Logger}: errors at WARNING, everything else at FINE. Thread-safe;
 * it holds only the logger.
 */
public final class LoggingChannelLogger extends io.grpc.ChannelLogger {
  private final Logger logger;

  /** Logs to {@code logger}. */
  public LoggingChannelLogger(Logger logger) {
    this.logger = logger;
  }

  @Override
  public void log(ChannelLogLevel level, String message) {
    logger.log(level == ChannelLogLevel.ERROR ? Level.WARNING : Level.FINE, message);
  }

  @Override
  public void log(ChannelLogLevel level, String messageFormat, Object... args) {
    if (logger.isLoggable(Level.FINE) || level == ChannelLogLevel.ERROR) {
      log(level, java.text.MessageFormat.format(messageFormat, args));
    }
  }
}
