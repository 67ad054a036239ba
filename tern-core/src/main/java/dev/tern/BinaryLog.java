package dev.tern;

import java.io.Closeable;
import java.io.IOException;

/**
 * A binary log (gRFC A16): records the headers, messages, trailers and cancellations of calls. Set
 * one on a server with {@link ServerBuilder#setBinaryLog} and on a channel with {@link
 * ManagedChannelBuilder#setBinaryLog}; {@code tern-services} provides the standard implementation
 * ({@code dev.tern.services.binarylog.BinaryLogs}), which writes {@code grpc.binarylog.v1} records.
 *
 * <p>The runtime calls the hooks once: a server wraps each method of its added services when it is
 * built (and each method its fallback registry returns, per call), outside the builder's
 * interceptors, so the log sees calls as they were on the wire; a channel wraps its innermost
 * channel when it is built, below its interceptors, so the log sees what the interceptors sent.
 * With no binary log set, nothing is wrapped.
 *
 * <p>Implementations must be thread-safe: one instance may serve many servers and channels, and
 * their calls concurrently. Closing the log is the application's job, after the servers and
 * channels using it have terminated.
 */
public abstract class BinaryLog implements Closeable {
  /** For subclasses. */
  protected BinaryLog() {}

  /**
   * Returns the definition the server dispatches to instead of {@code method}: {@code method}
   * itself when this log does not record it. The result must have the same full method name and
   * method type; it may use other marshallers (for example byte arrays, to see the serialized
   * messages).
   */
  public abstract ServerMethodDefinition<?, ?> wrapMethodDefinition(
      ServerMethodDefinition<?, ?> method);

  /** Returns a channel that records the calls made on it and passes them on to {@code channel}. */
  public abstract Channel wrapChannel(Channel channel);

  /** Flushes and releases what the log writes to. Calls still running may lose their records. */
  @Override
  public abstract void close() throws IOException;
}
