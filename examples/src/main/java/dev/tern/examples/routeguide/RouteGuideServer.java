package dev.tern.examples.routeguide;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.internal.cli.CommandLine;
import dev.tern.opentelemetry.GrpcOpenTelemetry;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.reflection.ProtoReflectionService;
import java.io.IOException;
import java.io.PrintStream;
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

  /**
   * The launcher's flags ({@code --help} prints them). The parser is shared by Tern's own programs
   * and is not API: an application would parse its arguments its own way.
   */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "routeguide-server",
              "the route guide server, with the health and reflection services, until stopped")
          .flag("port", "N", "50051", "the port; 0 picks a free one (printed once listening)")
          .flag(
              "otlp",
              "URL",
              null,
              "send metrics and spans to an OpenTelemetry Collector, e.g. http://127.0.0.1:4318")
          .flag(
              "prometheus-port",
              "N",
              null,
              "serve the server's metrics for Prometheus to scrape on this port")
          .note("Prints 'Route guide server listening on port N' once listening.")
          .example("bin/routeguide-server --port=50051");

  /** {@code bin/routeguide-server [--port=N] [--otlp=URL] [--prometheus-port=N]}. */
  public static void main(String[] args) throws InterruptedException {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Starts the server the flags describe and serves until the JVM is stopped.
   *
   * @return 0 after {@code --help} (printed to {@code out}); 1 after a one-line message to {@code
   *     err} if it cannot listen; 2 after a one-line message naming the flag if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws InterruptedException {
    int port;
    String otlp;
    int prometheusPort;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      port = flags.integer("port", 0);
      otlp = flags.string("otlp");
      prometheusPort = flags.has("prometheus-port") ? flags.integer("prometheus-port", 0) : -1;
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    Telemetry telemetry =
        otlp != null || prometheusPort >= 0
            ? new Telemetry("routeguide-server", otlp, prometheusPort)
            : null;
    HealthStatusManager health = new HealthStatusManager();
    Server server;
    try {
      server = start(port, health, telemetry == null ? null : telemetry.grpc());
    } catch (IOException e) {
      if (telemetry != null) {
        telemetry.close();
      }
      err.println(FLAGS.program() + ": could not listen on port " + port + ": " + e.getMessage());
      return 1;
    }
    out.println("Route guide server listening on port " + server.getPort());
    out.flush();
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
    return 0;
  }
}
