package dev.tern;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server listening for calls. Thread-safe. Lifecycle mirrors {@link ManagedChannel}: {@link
 * #start}, then {@link #shutdown} (refuse new calls, let calls in flight finish) or {@link
 * #shutdownNow} (cancel them too); terminated when every call and connection is gone.
 */
public abstract class Server {
  /** For subclasses. */
  protected Server() {}

  /**
   * Binds and starts serving.
   *
   * @throws IOException if binding fails (e.g. the port is taken)
   * @throws IllegalStateException if already started or shut down
   */
  public abstract Server start() throws IOException;

  /** The bound port, or -1 if the server is not listening on a port (e.g. in-process). */
  public int getPort() {
    return -1;
  }

  /** The addresses the server listens on; empty before {@link #start}. */
  public List<? extends SocketAddress> getListenSockets() {
    return List.of();
  }

  /** The services added to the builder (the fallback registry's are not included). */
  public List<ServerServiceDefinition> getServices() {
    return List.of();
  }

  /**
   * Stops accepting connections and calls; calls in flight continue. A call that arrives after this
   * is refused in a way clients retry on another server (HTTP/2: GOAWAY, then REFUSED_STREAM).
   */
  public abstract Server shutdown();

  /** Shuts down and cancels every call in flight. */
  public abstract Server shutdownNow();

  /** Whether shutdown was requested. */
  public abstract boolean isShutdown();

  /** Whether the server has shut down and every call and connection is gone. */
  public abstract boolean isTerminated();

  /** Waits up to {@code timeout} for termination; returns whether it terminated. */
  public abstract boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException;

  /** Waits for termination without a limit. */
  public abstract void awaitTermination() throws InterruptedException;
}
