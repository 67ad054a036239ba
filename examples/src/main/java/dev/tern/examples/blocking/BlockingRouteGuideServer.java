package dev.tern.examples.blocking;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.examples.routeguide.FeatureDatabase;
import dev.tern.stub.BlockingExecutors;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Serves the route guide written in blocking style ({@link BlockingRouteGuideService}) over HTTP/2.
 * Each call runs on a virtual thread of its own on JDK 21 and later, on Tern's bounded pool before
 * ({@link BlockingExecutors}). Run it with {@code bin/lib/launch.sh examples
 * dev.tern.examples.blocking.BlockingRouteGuideServer [--port=N]} (default 50051; 0 picks a free
 * port, printed on start).
 */
public final class BlockingRouteGuideServer {
  private BlockingRouteGuideServer() {}

  /** Builds and starts the server on {@code port} (0 for any free port). */
  public static Server start(int port) throws IOException {
    return ServerBuilder.forPort(port)
        // The generated interface binds itself: addService calls its bindService().
        .addService(new BlockingRouteGuideService(FeatureDatabase.load()))
        .build()
        .start();
  }

  /** {@code BlockingRouteGuideServer [--port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    int port = 50051;
    for (String arg : args) {
      if (arg.startsWith("--port=")) {
        port = Integer.parseInt(arg.substring("--port=".length()));
      } else {
        System.err.println("usage: BlockingRouteGuideServer [--port=N]");
        System.exit(2);
      }
    }
    Server server = start(port);
    System.out.println(
        "Blocking route guide server listening on port "
            + server.getPort()
            + (BlockingExecutors.virtualThreadsAvailable()
                ? ", a virtual thread per call"
                : ", calls on a pool of " + BlockingExecutors.POOL_SIZE + " threads"));
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
