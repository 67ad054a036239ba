package dev.tern.benchmarks.jmh;

/**
 * A server and a channel of one gRPC system (Tern or grpc-java) over one transport, serving an echo
 * method of byte arrays, so that both systems run exactly the same work. Created and closed by a
 * JMH state on one thread; {@link #unary} and the stream are used by the benchmark thread only.
 */
interface EchoTarget {
  /** One blocking unary call: sends {@code request}, returns the echoed bytes. */
  byte[] unary(byte[] request);

  /** Sends {@code message} on the open bidi stream and waits for its echo. */
  byte[] pingPong(byte[] message) throws InterruptedException;

  /** Shuts the channel and server down and waits for them. */
  void shutdown() throws InterruptedException;

  /** Which system and transport to build. */
  static EchoTarget create(String system, String transport, boolean directExecutor)
      throws Exception {
    boolean netty =
        switch (transport) {
          case "netty" -> true;
          case "inprocess" -> false;
          default -> throw new IllegalArgumentException("transport: netty or inprocess");
        };
    return switch (system) {
      case "tern" -> new TernEchoTarget(netty, directExecutor);
      case "grpc-java" -> new GrpcJavaEchoTarget(netty, directExecutor);
      default -> throw new IllegalArgumentException("system: tern or grpc-java");
    };
  }
}
