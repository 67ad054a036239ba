package dev.tern.examples.routeguide;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.console.TernConsole;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.opentelemetry.GrpcOpenTelemetry;
import dev.tern.services.AdminServices;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.reflection.ProtoReflectionService;
import dev.tern.web.WebProtocols;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Serves the route guide: gRPC over HTTP/2, and on the same port gRPC-Web and Connect over HTTP/1.1
 * and HTTP/2 for web clients ({@code tern-web}; see {@code docs/web.md}). Run it with {@code
 * bin/routeguide-server [--port=N]} (default 50051; 0 picks a free port, printed on start).
 *
 * <p>Beside the route guide it serves the standard health service ({@code grpc.health.v1}) and
 * server reflection (v1 and v1alpha), so tools need no {@code .proto} file; reflection serves the
 * descriptor set the build wrote with protoc's {@code --include_source_info}, so {@code grpcurl
 * describe} and the console show the {@code .proto}'s comments:
 *
 * <pre>
 * grpcurl -plaintext 127.0.0.1:50051 list
 * grpcurl -plaintext -d '{"latitude":515055000,"longitude":-754000}' \
 *     127.0.0.1:50051 tern.examples.routeguide.RouteGuide/GetFeature
 * grpc-health-probe -addr=127.0.0.1:50051 -service=tern.examples.routeguide.RouteGuide
 * </pre>
 *
 * <p>{@code curl} calls it with JSON over HTTP/1.1 (Connect's unary protocol); a page from another
 * origin may call it once {@code --cors-origin=http://127.0.0.1:8000} allows that origin:
 *
 * <pre>
 * curl -H 'Content-Type: application/json' -d '{"latitude":515055000,"longitude":-754000}' \
 *     http://127.0.0.1:50051/tern.examples.routeguide.RouteGuide/GetFeature
 * </pre>
 *
 * <p>{@code --otlp=http://127.0.0.1:4318} sends its metrics and spans to an OpenTelemetry
 * Collector; {@code --prometheus-port=9464} serves its metrics for Prometheus to scrape (see {@code
 * docs/observability.md}). {@code --console} serves the Tern console ({@code docs/console.md}) and
 * prints its address.
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
    return start(port, health, otel, List.of());
  }

  /**
   * Like {@link #start(int, HealthStatusManager, GrpcOpenTelemetry)}, also letting web pages from
   * {@code corsOrigins} (e.g. {@code http://127.0.0.1:8000}) call it from the browser. With no
   * origins, web clients are served without CORS: curl, buf curl and same-origin pages.
   *
   * @throws IllegalArgumentException if an origin is empty
   */
  public static Server start(
      int port, HealthStatusManager health, GrpcOpenTelemetry otel, List<String> corsOrigins)
      throws IOException {
    return start(port, health, otel, corsOrigins, false);
  }

  /**
   * Like {@link #start(int, HealthStatusManager, GrpcOpenTelemetry, List)}; with {@code console},
   * also serves the Tern console under {@link #CONSOLE_PATH} ({@code docs/console.md}), with
   * channelz, listening on 127.0.0.1 only (the console is for this machine: it has no authenticator
   * here).
   */
  public static Server start(
      int port,
      HealthStatusManager health,
      GrpcOpenTelemetry otel,
      List<String> corsOrigins,
      boolean console)
      throws IOException {
    // ServerBuilder.forPort finds the Netty transport, and it finds tern-web's protocols on the
    // class path; allowing origins is a WebProtocols setting, so only then is Netty named here.
    ProtoReflectionService.Builder reflection = reflectionWithComments();
    ServerBuilder<?> builder;
    if (console) {
      NettyServerBuilder netty =
          NettyServerBuilder.forAddress(
              new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      TernConsole.Builder consoleBuilder =
          TernConsole.builder()
              .exampleRequest(
                  RouteGuideTern.SERVICE_NAME + "/GetFeature",
                  "{\"latitude\": 515055000, \"longitude\": -754000}")
              .exampleRequest(
                  RouteGuideTern.SERVICE_NAME + "/ListFeatures",
                  "{\"lo\": {\"latitude\": 515070000, \"longitude\": -1000000},"
                      + " \"hi\": {\"latitude\": 515100000, \"longitude\": -970000}}");
      if (!corsOrigins.isEmpty()) {
        consoleBuilder.webProtocols(
            WebProtocols.builder().corsAllowedOrigins(corsOrigins.toArray(String[]::new)).build());
      }
      consoleBuilder.build().addTo(netty);
      AdminServices.addTo(netty);
      builder = netty;
    } else {
      builder =
          corsOrigins.isEmpty()
              ? ServerBuilder.forPort(port)
              : NettyServerBuilder.forPort(port)
                  .httpProtocols(
                      WebProtocols.builder()
                          .corsAllowedOrigins(corsOrigins.toArray(String[]::new))
                          .build());
    }
    builder
        .addService(new RouteGuideService(FeatureDatabase.load()))
        .addService(health.getHealthService())
        .addService(reflection.v1())
        .addService(reflection.v1alpha());
    if (otel != null) {
      otel.configureServerBuilder(builder);
    }
    Server server = builder.build().start();
    health.setStatus(RouteGuideTern.SERVICE_NAME, ServingStatus.SERVING);
    return server;
  }

  /** The examples' descriptor set with comments, which the build writes (examples/pom.xml). */
  private static final String DESCRIPTORS_WITH_COMMENTS =
      "/dev/tern/examples/examples-with-comments.binpb";

  /**
   * Reflection that describes route_guide.proto with its comments (for grpcurl's {@code describe}
   * and the console): the descriptor set protoc wrote at build time with {@code
   * --include_source_info}, since the descriptors in the generated code keep no comments.
   */
  private static ProtoReflectionService.Builder reflectionWithComments() throws IOException {
    try (InputStream in = RouteGuideServer.class.getResourceAsStream(DESCRIPTORS_WITH_COMMENTS)) {
      if (in == null) {
        throw new IOException(
            DESCRIPTORS_WITH_COMMENTS
                + " is not on the class path: the examples' build writes it (protobuf-maven-plugin's"
                + " writeDescriptorSet); rebuild the examples");
      }
      return ProtoReflectionService.builder().descriptorSet(in.readAllBytes());
    }
  }

  /** The console's address on {@code server} (started with {@code console}). */
  public static String consoleUrl(Server server) {
    return "http://127.0.0.1:" + server.getPort() + CONSOLE_PATH;
  }

  /** Where the console is served, with {@code --console}. */
  public static final String CONSOLE_PATH = TernConsole.PATH;

  /** What a browser sends in {@code Origin}: scheme, host and perhaps a port, nothing more. */
  private static final Pattern ORIGIN = Pattern.compile("https?://[^/?#\\s]+");

  static final String PROGRAM = "routeguide-server";

  /** What {@code --help} prints. */
  static final String HELP =
      """
      routeguide-server: the route guide server, with the health and reflection services, until \
      stopped

      Usage: bin/routeguide-server [FLAGS]

      Flags:
        --port=N                         the port; 0 picks a free one (printed once listening)
                                         (default: 50051)
        --otlp=URL                       send metrics and spans to an OpenTelemetry Collector,
                                         e.g. http://127.0.0.1:4318 (default: none)
        --prometheus-port=N              serve the server's metrics for Prometheus to scrape on
                                         this port (default: none)
        --console                        serve the Tern console (docs/console.md) at
                                         http://127.0.0.1:N/_tern/console/ and listen on
                                         127.0.0.1 only (default: off)
        --cors-origin=ORIGIN[,ORIGIN]    let web pages from these origins call it from a browser,
                                         e.g. http://127.0.0.1:8000, or * for any (CORS;
                                         docs/web.md) (default: none)
        -h, --help                       print this and exit

      Prints 'Route guide server listening on port N' once listening.

      Example:
        bin/routeguide-server --port=50051
      """;

  /**
   * {@code bin/routeguide-server [--port=N] [--otlp=URL] [--prometheus-port=N]
   * [--cors-origin=ORIGIN,...] [--console]}.
   */
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
    List<String> corsOrigins;
    // --console is a switch, without a value.
    boolean console = Arrays.asList(args).contains("--console");
    try {
      Map<String, String> flags =
          Flags.parse(
              PROGRAM,
              HELP,
              Arrays.stream(args).filter(a -> !a.equals("--console")).toArray(String[]::new),
              "port",
              "otlp",
              "prometheus-port",
              "cors-origin");
      port = Flags.port(PROGRAM, "port", flags.getOrDefault("port", "50051"));
      otlp = flags.get("otlp");
      prometheusPort =
          flags.containsKey("prometheus-port")
              ? Flags.port(PROGRAM, "prometheus-port", flags.get("prometheus-port"))
              : -1;
      corsOrigins =
          flags.containsKey("cors-origin")
              ? Arrays.asList(flags.get("cors-origin").split(",", -1))
              : List.of();
      for (String origin : corsOrigins) {
        // An origin with a path, or without its scheme, would never equal a browser's Origin
        // header, and every call from the page would fail: say so now instead.
        if (!origin.equals("*") && !ORIGIN.matcher(origin).matches()) {
          throw Flags.usageError(
              PROGRAM,
              "--cors-origin: '"
                  + origin
                  + "' is not an origin; give scheme://host[:port] as browsers send it,"
                  + " e.g. http://127.0.0.1:8000");
        }
      }
    } catch (Flags.Stop stop) {
      return stop.report(out, err);
    }
    Telemetry telemetry =
        otlp != null || prometheusPort >= 0
            ? new Telemetry("routeguide-server", otlp, prometheusPort)
            : null;
    HealthStatusManager health = new HealthStatusManager();
    Server server;
    try {
      server =
          start(port, health, telemetry == null ? null : telemetry.grpc(), corsOrigins, console);
    } catch (IOException e) {
      if (telemetry != null) {
        telemetry.close();
      }
      err.println(PROGRAM + ": could not listen on port " + port + ": " + e.getMessage());
      return 1;
    }
    out.println("Route guide server listening on port " + server.getPort());
    if (console) {
      out.println("Console: " + consoleUrl(server));
    }
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
