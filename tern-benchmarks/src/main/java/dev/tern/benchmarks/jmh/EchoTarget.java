package dev.tern.benchmarks.jmh;

import java.util.List;
import java.util.Map;

/**
 * A server and a channel of one gRPC system (Tern or grpc-java) over one transport, serving the
 * same methods of byte arrays, so that both systems run exactly the same work: a unary echo, a bidi
 * echo, and two one-way streams (a client-streaming method whose server counts what it receives,
 * and a bidi method whose server sends what it is asked for). Created and closed by a JMH state on
 * one thread; {@link #unary}, the bidi stream and the one-way streams are used by the benchmark
 * thread only, and one one-way stream at a time.
 */
interface EchoTarget {
  /** Both systems' default limit of inbound messages (4 MiB), on server and channel. */
  int DEFAULT_MAX_INBOUND_MESSAGE_SIZE = 4 * 1024 * 1024;

  /**
   * How a target is set up.
   *
   * @param directExecutor callbacks on the transport's threads instead of each system's default
   *     executor, on server and channel
   * @param retry the channel has {@link #retryServiceConfig()} and retries enabled
   * @param binlog server and channel log every call to a binary log whose sink drops the entries
   * @param telemetry if not null, the system's own OpenTelemetry module records metrics and spans
   *     of every call on the server and the channel into it
   * @param maxInboundMessageSize the largest message the server and the channel accept
   */
  record Options(
      boolean directExecutor,
      boolean retry,
      boolean binlog,
      BenchTelemetry telemetry,
      int maxInboundMessageSize) {
    /** Each system's defaults (its default executor, 4 MiB messages), nothing added. */
    static Options defaults() {
      return new Options(false, false, false, null, DEFAULT_MAX_INBOUND_MESSAGE_SIZE);
    }

    /** These options with another limit of inbound messages. */
    Options withMaxInboundMessageSize(int bytes) {
      return new Options(directExecutor, retry, binlog, telemetry, bytes);
    }
  }

  /** One blocking unary call: sends {@code request}, returns the echoed bytes. */
  byte[] unary(byte[] request);

  /** Sends {@code message} on the open bidi stream and waits for its echo. */
  byte[] pingPong(byte[] message) throws InterruptedException;

  /**
   * Opens a client-streaming call ({@code bench.Echo/Sink}) on which the client sends {@code
   * messageSize}-byte messages whenever the call is ready and the server's handler counts them; the
   * server answers with its count when the client half-closes.
   */
  OneWayStream clientToServer(int messageSize);

  /**
   * Opens a bidi call ({@code bench.Echo/Source}) on which the client asks for messages with small
   * {@link SourceRequest}s and the server sends {@code messageSize}-byte messages whenever the call
   * is ready; the client's handler counts them. The server ends the call when the client
   * half-closes.
   */
  OneWayStream serverToClient(int messageSize);

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
   * Which system ({@code tern}, {@code grpc-java}) and transport ({@code netty}, {@code
   * inprocess}).
   */
  static EchoTarget create(String system, String transport, Options options) throws Exception {
    boolean netty =
        switch (transport) {
          case "netty" -> true;
          case "inprocess" -> false;
          default -> throw new IllegalArgumentException("transport: netty or inprocess");
        };
    return switch (system) {
      case "tern" -> new TernEchoTarget(netty, options);
      case "grpc-java" -> new GrpcJavaEchoTarget(netty, options);
      default -> throw new IllegalArgumentException("system: tern or grpc-java");
    };
  }
}
