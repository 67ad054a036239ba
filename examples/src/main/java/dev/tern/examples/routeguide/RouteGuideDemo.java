package dev.tern.examples.routeguide;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * What {@code bin/demo} runs: a route guide server on a free port over HTTP/2 (Netty), and a client
 * in the same JVM making all four kinds of call to it over a real loopback socket.
 */
public final class RouteGuideDemo {
  private RouteGuideDemo() {}

  /** Runs the server and the client's tour, then shuts both down. */
  public static void main(String[] args) throws IOException, InterruptedException {
    Server server = RouteGuideServer.start(0);
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      System.out.println("Route guide server on 127.0.0.1:" + server.getPort());
      new RouteGuideClient(channel, System.out).runTour();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
      server.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
