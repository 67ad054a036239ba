/**
 * Binary logging (gRFC A16): {@link dev.tern.services.binarylog.BinaryLogs} creates a {@link
 * dev.tern.BinaryLog} to set on server and channel builders, which records the calls its filter
 * selects as {@code grpc.binarylog.v1.GrpcLogEntry} records in a {@link
 * dev.tern.services.binarylog.BinaryLogSink}, by default a file ({@link
 * dev.tern.services.binarylog.FileBinaryLogSink}). See {@code docs/binary-log.md}.
 */
package dev.tern.services.binarylog;
