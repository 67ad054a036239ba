/**
 * The JMH benchmarks: Tern beside grpc-java on the same work, run by {@code bin/bench-compare}'s
 * JMH part (or by hand with {@code -prof gc} for bytes per call). Not shipped.
 *
 * <ul>
 *   <li>Calls end to end over Netty on loopback: {@code CallBenchmark} (1 KiB unary and bidi
 *       ping-pong), {@code LargeUnaryBenchmark} (1 and 16 MiB), {@code OneWayStreamBenchmark}
 *       (messages per second one way), {@code TlsBenchmark} (handshakes and calls on the JDK's TLS
 *       and on OpenSSL), {@code XdsCallBenchmark} (an {@code xds:} channel's per-call cost), {@code
 *       CompressionBenchmark} (1 MiB unary on Tern with each message encoding: identity, gzip,
 *       zstd).
 *   <li>The systems under those: {@code EchoTarget} (one server and channel of one system serving
 *       the same byte-array methods), {@code TernEchoTarget}, {@code GrpcJavaEchoTarget}; the
 *       one-way streams ({@code OneWayStream}, {@code OneWayProgress}, {@code SourceRequest});
 *       {@code BenchTelemetry}, the same OpenTelemetry SDK for both systems' {@code otel} runs.
 *   <li>Parts alone: {@code HpackBenchmark}, header blocks decoded and encoded by Tern's HPACK
 *       beside Netty's.
 * </ul>
 *
 * <p>Threads: JMH's benchmark threads make the calls; each target's server and channel run on their
 * own system's event loops and executors, created and closed by a JMH state on one thread. A
 * one-way stream's sender and counter meet in {@code OneWayProgress}, which is thread-safe.
 */
package dev.tern.benchmarks.jmh;
