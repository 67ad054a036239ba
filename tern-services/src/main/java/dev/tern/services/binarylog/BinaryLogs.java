package dev.tern.services.binarylog;

import dev.tern.BinaryLog;
import java.io.IOException;
import java.time.Clock;
import java.util.Objects;

/**
 * Creates binary logs (gRFC A16) to set on servers ({@code ServerBuilder.setBinaryLog}) and
 * channels ({@code ManagedChannelBuilder.setBinaryLog}). Each records the calls of the methods its
 * filter selects as {@code grpc.binarylog.v1.GrpcLogEntry} records in a {@link BinaryLogSink}.
 *
 * <p>The filter is the {@code GRPC_BINARY_LOG_FILTER} syntax (see {@code docs/binary-log.md}): for
 * example {@code *} logs everything, {@code pkg.Svc/*{h;m:256},-pkg.Svc/Secret} logs the headers
 * and the first 256 bytes of each message of every method of {@code pkg.Svc} except {@code Secret}.
 * The methods without a filter argument take the filter from the {@code GRPC_BINARY_LOG_FILTER}
 * environment variable; as in grpc-java, when it is unset or empty they log nothing.
 *
 * <p>Close the log (it closes its sink) after the servers and channels that use it have terminated.
 * Thread-safe.
 */
public final class BinaryLogs {
  /** The environment variable gRFC A16 names. */
  public static final String FILTER_ENV = "GRPC_BINARY_LOG_FILTER";

  private BinaryLogs() {}

  /**
   * A binary log that writes to a new file in the temporary directory (see {@link
   * FileBinaryLogSink#createTempFile()}; its name is logged at INFO), with the filter of {@code
   * GRPC_BINARY_LOG_FILTER} (nothing is logged when that is unset or empty).
   *
   * @throws IOException if the file cannot be created
   * @throws IllegalArgumentException if the environment's filter is malformed
   */
  public static BinaryLog createBinaryLog() throws IOException {
    String filter = filterFromEnvironment();
    FileBinaryLogSink sink = FileBinaryLogSink.createTempFile();
    try {
      return createBinaryLog(sink, filter);
    } catch (RuntimeException e) {
      sink.close();
      throw e;
    }
  }

  /**
   * A binary log that writes to {@code sink}, with the filter of {@code GRPC_BINARY_LOG_FILTER}
   * (nothing is logged when that is unset or empty).
   *
   * @throws IllegalArgumentException if the environment's filter is malformed
   */
  public static BinaryLog createBinaryLog(BinaryLogSink sink) {
    return createBinaryLog(sink, filterFromEnvironment());
  }

  /**
   * A binary log that writes to {@code sink} the calls {@code filter} selects.
   *
   * @throws IllegalArgumentException if {@code filter} is malformed or its terms conflict; the
   *     message gives the offset and text of the term and the problem
   */
  public static BinaryLog createBinaryLog(BinaryLogSink sink, String filter) {
    Objects.requireNonNull(sink, "sink");
    Objects.requireNonNull(filter, "filter");
    return new FilteredBinaryLog(sink, BinaryLogFilter.parse(filter), Clock.systemUTC());
  }

  private static String filterFromEnvironment() {
    String filter = System.getenv(FILTER_ENV);
    return filter != null ? filter : "";
  }
}
