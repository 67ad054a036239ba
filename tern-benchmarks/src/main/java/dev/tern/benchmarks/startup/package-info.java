/**
 * Start-up: the clients {@code bin/bench-compare}'s {@code startup} part times from the launch of
 * their JVM to their first answered call, one per system, each the way a user writes the first call
 * of a program with that system's public API. {@code TernFirstCall} on Tern, {@code
 * GrpcJavaFirstCall} on grpc-java 1.79 (its generated blocking stub of {@code BenchmarkService}
 * from grpc-benchmarks). Each prints one line when its call is answered and exits. Not shipped.
 *
 * <p>Threads: each {@code main} runs on its own thread and blocks on its one call.
 */
package dev.tern.benchmarks.startup;
