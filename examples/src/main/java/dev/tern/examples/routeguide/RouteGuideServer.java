package dev.tern.examples.routeguide;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.opentelemetry.GrpcOpenTelemetry;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.reflection.ProtoReflectionService;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Serves the route guide over HTTP/2. Run it with {@code bin/routeguide-server [--port=N]} (default
 * 50051; 0 picks a free port, printed on start).
 *
 * <p>Beside the route guide it serves the standard health service ({@code grpc.health.v1}) and
 * server reflection (v1 and v1alpha), so tools need no {@code .proto} file:
 *
 * <pre>
 * grpcurl -plaintext 127.0.0.1:50051 list
 * grpcurl -plaintext -d '{"latitude":515055000,"longitude":-754000}' \
 *     127.0.0.1:50051 tern.examples.routeguide.RouteGuide/GetFeature
 * grpc-health-probe -addr=127.0.0.1:50051 -service=tern.examples.routeguide.RouteGuide
 * </pre>
 *
 * <p>{@code --otlp=http://127.0.0.1:4318} sends its metrics and spans to an OpenTelemetry
 * Collector; {@code --prometheus-port=9464} serves its metrics for Prometheus to scrape (see {@code
 * docs/observability.md}).
 */
public final class RouteGuideServer {
  private RouteGuideServer() {}

  /** Builds and starts a route guide server on {@code port} (0 for any free port). */
  public static Server start(int port) throws IOException {
    return start(port, new HealthStatusManager());
  }

  /**
   * Builds and starts a route guide server on {@code port} whose health service reports {@code
   * health}; the route guide is marked SERVING there once the server has started.
   */
  public static Server start(int port, HealthStatusManager health) throws IOException {
    return start(port, health, null);
  }

  /**
   * Like {@link #start(int, HealthStatusManager)}, with OpenTelemetry metrics and tracing from
   * {@code otel} (null for none).
   */
  public static Server start(int port, HealthStatusManager health, GrpcOpenTelemetry otel)
      throws IOException {
    ServerBuilder<?> builder =
        ServerBuilder.forPort(port)
            .addService(new RouteGuideService(FeatureDatabase.load()))
            .addService(health.getHealthService())
            .addService(ProtoReflectionService.v1())
            .addService(ProtoReflectionService.v1alpha());
    if (otel != null) {
      otel.configureServerBuilder(builder);
    }
    Server server = builder.build().start();
    health.setStatus(RouteGuideTern.SERVICE_NAME, ServingStatus.SERVING);
    return server;
  }

  /** {@code bin/routeguide-server [--port=N] [--otlp=URL] [--prometheus-port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    int port = 50051;
    String otlp = null;
    int prometheusPort = -1;
    for (String arg : args) {
      if (arg.startsWith("--port=")) {
        port = Integer.parseInt(arg.substring("--port=".length()));
      } else if (arg.startsWith("--otlp=")) {
        otlp = arg.substring("--otlp=".length());
      } else if (arg.startsWith("--prometheus-port=")) {
        prometheusPort = Integer.parseInt(arg.substring("--prometheus-port=".length()));
      } else {
        System.err.println(
            "usage: routeguide-server [--port=N] [--otlp=http://HOST:4318]"
                + " [--prometheus-port=N]");
        System.exit(2);
      }
    }
    Telemetry telemetry =
        otlp != null || prometheusPort >= 0
            ? new Telemetry("routeguide-server", otlp, prometheusPort)
            : null;
    HealthStatusManager health = new HealthStatusManager();
    Server server = start(port, health, telemetry == null ? null : telemetry.grpc());
    System.out.println("Route guide server listening on port " + server.getPort());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  // Probes see NOT_SERVING while the calls in flight finish.
                  health.enterTerminalState();
                  server.shutdown();
                  try {
                    server.awaitTermination(5, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  if (telemetry != null) {
                    telemetry.close(); // exports the last metrics and spans
                  }
                }));
    server.awaitTermination();
  }
}
