package dev.tern.reliability;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * One gRPC implementation under test (Tern, or grpc-java as the reference): its servers and its
 * client, driven through the same workload and faults.
 */
public interface Peer {
  /** The name in the report. */
  String name();

  /** Starts one server on each of {@code hosts} (a free port each); returns their addresses. */
  List<InetSocketAddress> startServers(List<String> hosts) throws IOException;

  /**
   * A client channel over {@code servers} (IPv4 addresses: the proxies, or the servers themselves),
   * with {@link ChaosService#SERVICE_CONFIG} and keepalive.
   */
  Client newClient(List<InetSocketAddress> servers);

  /** Shuts every server down and waits for them. */
  void stopServers(Duration timeout) throws InterruptedException;

  /**
   * Drains server {@code index} (of {@link #startServers}): a graceful shutdown (GOAWAY; calls in
   * flight finish), then shutdown now if it has not terminated after {@code deadline}. Returns
   * whether it drained within the deadline.
   */
  boolean drainServer(int index, Duration deadline) throws InterruptedException;

  /**
   * Starts server {@code index} again, on the same address, after {@link #drainServer}; {@code
   * served} is counted down once per call it starts.
   */
  void restartServer(int index, CountDownLatch served) throws IOException;

  /**
   * How a call ended: its status code's name ({@code OK}, {@code UNAVAILABLE}, ...) and the
   * status's description (null if none).
   */
  record CallEnd(String code, String description) {}

  /** A client channel. Thread-safe: the workers start calls on it concurrently. */
  interface Client {
    /**
     * Starts a call of {@code kind} under its deadline; the future completes with its status once
     * the call has ended.
     */
    CompletableFuture<CallEnd> call(CallKind kind);

    /**
     * Starts an overload run's call (a small request; on the server a fixed amount of CPU, or a
     * sleep, or a stream of answers that each cost CPU) under {@code deadline}; the future
     * completes with its status once it has ended (a stream: once its last answer and status came).
     */
    CompletableFuture<CallEnd> work(ChaosService.WorkCall call, Duration deadline);

    /** Shuts the channel down and waits for it. */
    void shutdown(Duration timeout) throws InterruptedException;
  }
}
