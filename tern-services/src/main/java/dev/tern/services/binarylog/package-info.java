/**
 * Binary logging (gRFC A16): records the calls a filter selects as {@code
 * grpc.binarylog.v1.GrpcLogEntry} records. See {@code docs/binary-log.md}.
 *
 * <pre>
 * BinaryLogs.create(filter, sink) --&gt; FilteredBinaryLog (a dev.tern.BinaryLog), set on builders
 *   BinaryLogFilter: which methods, how much of headers and messages (GRPC_BINARY_LOG_FILTER)
 *   server: each logged method's definition wrapped by ServerCallLogging
 *   client: the channel wrapped by ClientCallLogging (unlogged methods pass through)
 *     both carry messages as bytes (ByteArrayMarshaller) so each is logged as on the wire
 *   a call --CallLogFactory (call ids)--&gt; CallLog: numbered entries, cut to the limits,
 *     addresses as PeerAddresses --&gt; BinaryLogSink (by default FileBinaryLogSink)
 * </pre>
 *
 * <p>The public rooms are {@link dev.tern.services.binarylog.BinaryLogs}, {@link
 * dev.tern.services.binarylog.BinaryLogSink} and {@link
 * dev.tern.services.binarylog.FileBinaryLogSink}; the rest is how a call is logged.
 *
 * <p>Threads: a call's entries are written on the threads its events happen on (the application's
 * and the transport's, often an event loop), so a sink must be thread-safe, quick and never block
 * for long; the file sink serializes writes under one lock. The log, the filter and the factories
 * are thread-safe; a {@code CallLog}'s sequence number is atomic.
 *
 * <p>Uses tern-core's API only ({@link dev.tern.BinaryLog} and the call types it wraps).
 */
package dev.tern.services.binarylog;
