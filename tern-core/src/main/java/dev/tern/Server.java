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
  /**
   * The server handling the current call: in the {@link Context} of every call a Tern server
   * dispatches, this key holds that server; elsewhere it reads null. It lets a service see the
   * server it runs on (server reflection lists the server's services with it):
   *
   * <pre>{@code
   * Server server = Server.CONTEXT_KEY.get(); // inside a call handler
   * }</pre>
   *
   * <p>A handler that runs work on other threads should read the key before leaving the call's
   * thread, or carry the call's context along.
   */
  public static final Context.Key<Server> CONTEXT_KEY = Context.key("dev.tern.Server");

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

  /**
   * The services added to the builder (the fallback registry's are not included, see {@link
   * #getMutableServices}). They never change.
   */
  public List<ServerServiceDefinition> getServices() {
    return List.of();
  }

  /**
   * The services of the {@link ServerBuilder#fallbackHandlerRegistry fallback registry}, as that
   * registry reports them at the time of this call ({@link HandlerRegistry#getServices}): with a
   * {@link dev.tern.MutableHandlerRegistry}, the services added to it so far. Empty when the server
   * has no fallback registry. Unlike {@link #getServices}, each call may answer differently.
   */
  public List<ServerServiceDefinition> getMutableServices() {
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
