package dev.tern.services.binarylog;

import com.google.protobuf.MessageLite;
import java.io.Closeable;

/**
 * Where a binary log's records go: each one a {@code grpc.binarylog.v1.GrpcLogEntry}. {@link
 * FileBinaryLogSink} writes them to a file; implement this to send them elsewhere.
 *
 * <p>Implementations must be thread-safe: calls on many threads write at once. {@link #write} runs
 * on the calls' threads (often a transport event loop), so it should be quick and must not block
 * for long; it should not throw (a failure to log is not the call's failure).
 */
public interface BinaryLogSink extends Closeable {
  /** Records one entry. Entries written after {@link #close()} may be dropped. */
  void write(MessageLite entry);
}
