package dev.tern.benchmarks.qps;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * One system's way of opening connections to a qps server for {@link ConnectionsClient}: each
 * {@link #open()} builds a new channel (so a new TCP connection and HTTP/2 session) and makes one
 * empty unary call on it. All channels of one opener share one NIO event loop group, so that ten
 * thousand of them cost a few threads, and use the system's default application executor.
 *
 * <p>Thread-safety: {@link #open()} may be called from any thread; {@link #close()} once, after the
 * connections it opened are closed.
 */
interface ConnectionOpener extends AutoCloseable {
  /** How long a first call may take before it counts as failed. */
  int FIRST_CALL_DEADLINE_SECONDS = 20;

  /**
   * Idle mode off: a channel that drops its connection after a while with no call would empty the
   * server this benchmark wants full. Both systems take 30 days or more to mean "never".
   */
  int IDLE_TIMEOUT_DAYS = 30;

  /** The systems {@link #forSystem} knows, as {@code --system} spells them. */
  String SYSTEMS = "tern|grpc-java";

  /** A channel that makes one call; closing it shuts the channel down and waits for that. */
  interface Connection {
    /** Completes when the first call has succeeded, or exceptionally with why it failed. */
    CompletableFuture<Void> firstCall();

    /** Shuts the channel down at once and waits (up to 5 s) until it has released everything. */
    void close() throws InterruptedException;
  }

  /** A new channel, one connection, making its first call. */
  Connection open();

  /** Releases the event loops; the connections must be closed (or abandoned with the JVM). */
  @Override
  void close();

  /**
   * The opener of {@code system} ({@code tern} or {@code grpc-java}) for {@code server}, binding
   * the client end of each connection to the next of {@code sources} in turn, or letting the kernel
   * choose if there are none.
   *
   * @throws IllegalArgumentException for another system
   */
  static ConnectionOpener forSystem(
      String system, InetSocketAddress server, SourceAddresses sources) {
    switch (system) {
      case "tern":
        return new TernConnectionOpener(server, sources);
      case "grpc-java":
        return new GrpcJavaConnectionOpener(server, sources);
      default:
        throw new IllegalArgumentException("--system must be tern or grpc-java, got " + system);
    }
  }
}
