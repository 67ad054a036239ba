/**
 * grpc-java metric sinks on a Tern channel (gRFC A79's non-per-call metrics): {@link
 * dev.tern.grpcjava.internal.metrics.GrpcJavaMetricSink} runs an {@code io.grpc.MetricSink} as
 * Tern's, fed with the grpc-java instrument of each Tern instrument's name; {@code
 * GrpcJavaInstruments} finds or registers those in grpc-java's process-wide registry, grpc-java's
 * own registrants loaded first. Not API.
 *
 * <p>Threads: none of its own; everything here is thread-safe (the instrument matches are made once
 * per process under a lock).
 *
 * <p>Uses nothing of the bridge's other packages, and of Tern only the public API ({@code
 * tools/java/package-rules.txt}).
 */
package dev.tern.grpcjava.internal.metrics;
