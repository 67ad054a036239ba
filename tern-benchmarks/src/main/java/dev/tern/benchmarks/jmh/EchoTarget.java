package dev.tern.benchmarks.jmh;

import java.util.List;
import java.util.Map;

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

  /**
   * The service config of {@code retry} runs: a retry policy on the unary method (as gRFC A6's
   * example), in the JSON-like shape both systems take (numbers as doubles).
   */
  static Map<String, ?> retryServiceConfig() {
    return Map.of(
        "methodConfig",
        List.of(
            Map.of(
                "name",
                List.of(Map.of("service", "bench.Echo", "method", "Unary")),
                "retryPolicy",
                Map.of(
                    "maxAttempts",
                    3.0,
                    "initialBackoff",
                    "0.1s",
                    "maxBackoff",
                    "1s",
                    "backoffMultiplier",
                    2.0,
                    "retryableStatusCodes",
                    List.of("UNAVAILABLE")))));
  }

  /**
   * Which system and transport to build; with {@code retry}, the channel has {@link
   * #retryServiceConfig()} and retries enabled; with {@code binlog}, the server and the channel log
   * every call to a binary log whose sink drops the entries; with a {@code telemetry} (null: none),
   * the system's own OpenTelemetry module records metrics and spans of every call on the server and
   * the channel into it.
   */
  static EchoTarget create(
      String system,
      String transport,
      boolean directExecutor,
      boolean retry,
      boolean binlog,
      BenchTelemetry telemetry)
      throws Exception {
    boolean netty =
        switch (transport) {
          case "netty" -> true;
          case "inprocess" -> false;
          default -> throw new IllegalArgumentException("transport: netty or inprocess");
        };
    return switch (system) {
      case "tern" -> new TernEchoTarget(netty, directExecutor, retry, binlog, telemetry);
      case "grpc-java" -> new GrpcJavaEchoTarget(netty, directExecutor, retry, binlog, telemetry);
      default -> throw new IllegalArgumentException("system: tern or grpc-java");
    };
  }
}
