/**
 * Tern under the Connect conformance suite ({@code connectconformance}), as a gRPC client and as a
 * gRPC server. Not shipped.
 *
 * <ul>
 *   <li>Client mode: {@code ConformanceClient} reads the runner's requests from stdin and runs each
 *       as a {@code ClientCase} (one call with Tern's generated async stub), whose {@code
 *       ResponseRecorder} keeps what came back and cancels when the case asks.
 *   <li>Server mode: {@code ConformanceServer} starts a Tern Netty server serving {@code
 *       ConformanceServiceImpl} (the generated blocking service API), whose calls find their
 *       headers and trailers through {@code CallMetadata}.
 *   <li>Shared: {@code DelimitedMessages} (the runner's length-prefixed framing on stdin and
 *       stdout), {@code HeaderLists} (metadata to the runner's headers and back), {@code
 *       ConformanceErrors} (a status and its details to the runner's error and back).
 * </ul>
 *
 * <p>Threads: the client reads stdin on its main thread and runs up to {@code
 * ConformanceClient.PARALLEL_CALLS} cases at once on a pool of its own (a case may block on a
 * delay); cancellations are timed by one scheduler thread, and results are written to stdout one at
 * a time (under the output stream's lock), as cases end. The server's methods run on a thread of
 * their own per call (the blocking service API), so the delays a case asks for are plain sleeps.
 */
package dev.tern.conformance;
