package dev.tern.interop;

import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.testing.integration.TestServiceImpl;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * grpc-java 1.79's interop server ({@code TestServiceImpl} with its interceptors, as its {@code
 * TestServiceServer} runs it) in the test's JVM, on grpc-java's shaded Netty transport. Stateless;
 * safe from any thread.
 */
final class GrpcJavaInteropServer {
  /**
   * Every case of Tern's client but the three that grpc-java's server cannot pass on any transport:
   * it ignores {@code expect_compressed} and {@code ResponseParameters.compressed} (see {@code
   * peers/known-limitations.txt}).
   */
  static final List<String> PASSABLE_CASES =
      InteropCases.ALL.stream()
          .filter(
              c ->
                  !List.of(
                          "client_compressed_unary",
                          "client_compressed_streaming",
                          "server_compressed_streaming")
                      .contains(c))
          .toList();

  private GrpcJavaInteropServer() {}

  /**
   * Starts the server on a port of 127.0.0.1 the OS picks, plaintext, taking messages up to 16 MiB
   * as {@code TestServiceServer} does (for very_large_request); {@code executor} runs its delayed
   * responses. The caller shuts it down.
   */
  static io.grpc.Server start(ScheduledExecutorService executor) throws IOException {
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .maxInboundMessageSize(16 * 1024 * 1024)
        .addService(
            ServerInterceptors.intercept(
                new TestServiceImpl(executor), TestServiceImpl.interceptors()))
        .build()
        .start();
  }
}
