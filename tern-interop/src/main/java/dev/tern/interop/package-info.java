/**
 * Tern's programs for gRPC's interop tests: the client and server that the interop matrix runs
 * against grpc-java, grpc-go and grpcio, as gRPC's interop test descriptions define them. Not
 * shipped.
 *
 * <ul>
 *   <li>{@code bin/interop-client}: {@code InteropClient} (flags, channel, TLS with the test CA)
 *       runs {@code InteropCases} one at a time, and the soak cases' loops ({@code SoakCase},
 *       {@code SoakConfig}).
 *   <li>{@code bin/interop-server}: {@code InteropServer} serves {@code TestServiceImpl} behind
 *       {@code InteropServerInterceptors} (metadata echo, the {@code expect_compressed} checks).
 *   <li>{@code CompressionProbe}: a gzip decompressor that tells a case whether the message just
 *       parsed arrived compressed; {@code TestCerts}: where grpc-java's test certificates are.
 * </ul>
 *
 * <p>Threads: the client's cases run on its main thread, one at a time, except the soak cases,
 * whose iterations run on {@code soak_num_threads} threads. The server's handlers run on its call
 * executor; {@code CompressionProbe} marks the thread that parses a message, which is the thread
 * that hands it to the call.
 */
package dev.tern.interop;
