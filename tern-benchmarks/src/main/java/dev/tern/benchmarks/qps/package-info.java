/**
 * The qps tools: load generators and servers flag-compatible with grpc-java's {@code AsyncClient}
 * and {@code AsyncServer}, so {@code bin/bench-compare} runs every system the same way. Not
 * shipped.
 *
 * <ul>
 *   <li>{@code bin/qps-server}, {@code bin/qps-client}: {@code QpsServer} ({@code
 *       grpc.testing.BenchmarkService}) and {@code QpsClient} (closed loops of unary or ping-pong
 *       calls, latency in an HdrHistogram, grpc-java's summary block). Their threads come from
 *       {@code Transport} (one event loop group of {@code --transport}'s kind) and {@code
 *       AppExecutors}; their flags from {@code LoadFlags}.
 *   <li>Timing shared by every client, so all are measured by the same code: {@code ClosedLoops},
 *       {@code CallsByServer}; heap per call: {@code AllocatedBytes}, {@code ServerHeapCount},
 *       {@code HeapUsedProbe}.
 *   <li>grpc-java's side of the load-balancing run: {@code GrpcJavaBalancedClient}.
 *   <li>Many connections: {@code ConnectionsClient} with a {@code ConnectionOpener} per system
 *       ({@code TernConnectionOpener}, {@code GrpcJavaConnectionOpener}), spread over loopback
 *       source addresses ({@code SourceAddresses}, {@code SourceBoundNioSocketChannel}).
 *   <li>The bridge benchmark ({@code bin/bench-compare --bridge}): {@code ProviderQpsClient} and
 *       {@code ProviderQpsServer}, written against {@code io.grpc} only, with {@code PlainFlags}.
 *   <li>{@code bin/h3-loss}: {@code LossProbe}, HTTP/3 against HTTP/2 over TLS (a server,
 *       concurrent ping-pong calls on one connection, new connections' first calls).
 *   <li>{@code bin/vthread-bench}: {@code VirtualThreadBenchmark}, blocking handlers on virtual and
 *       platform threads.
 * </ul>
 *
 * <p>Threads: each program's {@code main} sets up and then waits; calls run on the event loops and
 * on the application executor ({@code --directexecutor}: on the event loops alone). {@code
 * ClosedLoops} takes latencies from every loop's thread at once; the counters it and {@code
 * CallsByServer} keep are thread-safe.
 */
package dev.tern.benchmarks.qps;
