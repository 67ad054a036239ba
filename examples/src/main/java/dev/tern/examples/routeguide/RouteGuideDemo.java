package dev.tern.examples.routeguide;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.internal.cli.CommandLine;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * What {@code bin/demo} runs: a route guide server on a free port over HTTP/2 (Netty), and a client
 * in the same JVM making all four kinds of call to it over a real loopback socket.
 */
public final class RouteGuideDemo {
  /**
   * Its command line: no flags, only {@code --help} (which {@code bin/demo} answers itself, before
   * building). The parser is shared by Tern's own programs and is not API.
   */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "demo",
              "runs a route guide server on a free port and a client making all four kinds of"
                  + " call to it")
          .example("bin/demo");

  private RouteGuideDemo() {}

  /** Runs the server and the client's tour, then shuts both down. */
  public static void main(String[] args) throws IOException, InterruptedException {
    try {
      FLAGS.parse(args);
    } catch (CommandLine.Exit exit) {
      System.exit(exit.report(System.out, System.err));
    }
    Server server = RouteGuideServer.start(0);
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      System.out.println(
          "Started the route guide server on 127.0.0.1:"
              + server.getPort()
              + "; the client makes each kind of call to it:");
      new RouteGuideClient(channel, System.out).runTour();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
      server.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
