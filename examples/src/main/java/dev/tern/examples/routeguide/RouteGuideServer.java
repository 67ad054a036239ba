package dev.tern.examples.routeguide;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Serves the route guide over HTTP/2. Run it with {@code bin/routeguide-server [--port=N]} (default
 * 50051; 0 picks a free port, printed on start).
 */
public final class RouteGuideServer {
  private RouteGuideServer() {}

  /** Builds and starts a route guide server on {@code port} (0 for any free port). */
  public static Server start(int port) throws IOException {
    return ServerBuilder.forPort(port)
        .addService(new RouteGuideService(FeatureDatabase.load()))
        .build()
        .start();
  }

  /** {@code bin/routeguide-server [--port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    int port = 50051;
    for (String arg : args) {
      if (arg.startsWith("--port=")) {
        port = Integer.parseInt(arg.substring("--port=".length()));
      } else {
        System.err.println("usage: routeguide-server [--port=N]");
        System.exit(2);
      }
    }
    Server server = start(port);
    System.out.println("Route guide server listening on port " + server.getPort());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.shutdown();
                  try {
                    server.awaitTermination(5, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }));
    server.awaitTermination();
  }
}
