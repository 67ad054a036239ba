package dev.tern.services.health;

import dev.tern.BindableService;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import java.util.Objects;

/**
 * Keeps the health of a server's services and serves it as the standard {@code
 * grpc.health.v1.Health} service ({@code Check}, {@code Watch} and {@code List}), the one probes
 * (grpc-health-probe, Kubernetes gRPC probes) and clients with client-side health checking ask.
 *
 * <pre>{@code
 * HealthStatusManager health = new HealthStatusManager();
 * Server server = ServerBuilder.forPort(8080)
 *     .addService(new GreeterImpl())
 *     .addService(health.getHealthService())
 *     .build().start();
 * health.setStatus("helloworld.Greeter", ServingStatus.SERVING);
 * ...
 * health.enterTerminalState(); // probes and watching clients see NOT_SERVING
 * server.shutdown();           // calls in flight drain
 * }</pre>
 *
 * <p>The server as a whole is the service named {@code ""} ({@link #SERVICE_NAME_ALL_SERVICES}); it
 * starts SERVING. Any other service is unknown until {@link #setStatus} names it: {@code Check}
 * answers NOT_FOUND for it and {@code Watch} sends SERVICE_UNKNOWN (and then waits for it to
 * appear).
 *
 * <p>Thread-safe: every method may be called from any thread. Watchers are told of every change;
 * one whose client does not keep up (HTTP/2 flow control) gets only the latest status once it can
 * take more, so a slow watcher costs one pending status, not a queue.
 */
public final class HealthStatusManager {
  /** The name of the server as a whole: its status is the answer for {@code service = ""}. */
  public static final String SERVICE_NAME_ALL_SERVICES = "";

  /**
   * The most services {@code List} answers for; with more it fails RESOURCE_EXHAUSTED (as the
   * proto's comment for {@code List} asks). One hundred keeps the answer under a few kilobytes
   * whatever the names, and is more services than one server normally registers.
   */
  public static final int MAX_LIST_SERVICES = 100;

  private final HealthService service = new HealthService(MAX_LIST_SERVICES);

  /** A manager whose server ({@code ""}) is SERVING and which knows no other service. */
  public HealthStatusManager() {
    service.setStatus(SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
  }

  /** The {@code grpc.health.v1.Health} service to add to the server; the same one every time. */
  public BindableService getHealthService() {
    return service;
  }

  /**
   * Sets the status of {@code service} ({@code ""} for the whole server) and tells its watchers if
   * it changed. Ignored after {@link #enterTerminalState()}.
   *
   * @throws IllegalArgumentException if {@code status} is SERVICE_UNKNOWN (only {@code Watch} may
   *     say that, of a service not set here) or UNRECOGNIZED
   */
  public void setStatus(String service, ServingStatus status) {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(status, "status");
    if (status == ServingStatus.SERVICE_UNKNOWN || status == ServingStatus.UNRECOGNIZED) {
      throw new IllegalArgumentException(
          "status must be SERVING, NOT_SERVING or UNKNOWN, was " + status);
    }
    this.service.setStatus(service, status);
  }

  /**
   * Forgets {@code service}: {@code Check} answers NOT_FOUND for it again and its watchers get
   * SERVICE_UNKNOWN. Ignored after {@link #enterTerminalState()}.
   */
  public void clearStatus(String service) {
    Objects.requireNonNull(service, "service");
    this.service.clearStatus(service);
  }

  /**
   * Marks every known service, the server's own {@code ""} included, NOT_SERVING for good: later
   * {@link #setStatus} and {@link #clearStatus} calls are ignored. Call it when the server begins
   * to shut down, before {@code Server.shutdown()}, so that probes and watching clients stop
   * sending new calls while the calls in flight drain. Idempotent.
   */
  public void enterTerminalState() {
    service.enterTerminalState();
  }
}
