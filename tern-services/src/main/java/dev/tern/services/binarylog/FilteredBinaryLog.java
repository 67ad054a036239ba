package dev.tern.services.binarylog;

import dev.tern.BinaryLog;
import dev.tern.Channel;
import dev.tern.ServerMethodDefinition;
import java.io.IOException;
import java.time.Clock;
import java.util.Objects;

/**
 * The binary log {@link BinaryLogs} creates: logs the methods its filter selects, on servers and
 * channels, to one sink. Methods the filter leaves out are not wrapped at all; a filter that logs
 * nothing leaves channels as they are too.
 *
 * <p>Thread-safe: immutable apart from the sink, which is thread-safe.
 */
final class FilteredBinaryLog extends BinaryLog {
  private final BinaryLogSink sink;
  private final BinaryLogFilter filter;
  private final CallLogFactory logs;

  FilteredBinaryLog(BinaryLogSink sink, BinaryLogFilter filter, Clock clock) {
    this.sink = Objects.requireNonNull(sink, "sink");
    this.filter = Objects.requireNonNull(filter, "filter");
    this.logs = new CallLogFactory(sink, clock);
  }

  @Override
  public ServerMethodDefinition<?, ?> wrapMethodDefinition(ServerMethodDefinition<?, ?> method) {
    BinaryLogFilter.Limits limits =
        filter.limitsFor(method.getMethodDescriptor().getFullMethodName());
    return limits == null ? method : ServerCallLogging.wrap(method, limits, logs);
  }

  @Override
  public Channel wrapChannel(Channel channel) {
    return filter.logsNothing() ? channel : new ClientCallLogging(channel, filter, logs);
  }

  /** Closes the sink. */
  @Override
  public void close() throws IOException {
    sink.close();
  }

  @Override
  public String toString() {
    return "BinaryLog{sink=" + sink + "}";
  }
}
