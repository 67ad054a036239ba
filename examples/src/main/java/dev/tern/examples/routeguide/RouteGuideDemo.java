package dev.tern.examples.routeguide;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.services.health.HealthStatusManager;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What {@code bin/demo} runs: a route guide server on a free port over HTTP/2 (Netty), and a client
 * in the same JVM making all four kinds of call to it over a real loopback socket.
 */
public final class RouteGuideDemo {
  /**
   * What {@code --help} prints ({@code bin/demo} answers {@code --help} itself, before building,
   * with the same text and a note on the first build).
   */
  static final String HELP =
      """
      demo: runs a route guide server on a free port and a client making all four kinds of call \
      to it

      Usage: bin/demo

      Flags:
        -h, --help    print this and exit

      Example:
        bin/demo
      """;

  private RouteGuideDemo() {}

  /** Runs the server and the client's tour, then shuts both down. */
  public static void main(String[] args) throws IOException, InterruptedException {
    try {
      Flags.parse("demo", HELP, args);
    } catch (Flags.Stop stop) {
      System.exit(stop.report(System.out, System.err));
    }
    Server server = RouteGuideServer.start(0, new HealthStatusManager(), null, List.of(), true);
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      System.out.println(
          "Started the route guide server on 127.0.0.1:"
              + server.getPort()
              + " (its console, while the demo runs: "
              + RouteGuideServer.consoleUrl(server)
              + "); the client makes each kind of call to it:");
      new RouteGuideClient(channel, System.out).runTour();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
      server.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
