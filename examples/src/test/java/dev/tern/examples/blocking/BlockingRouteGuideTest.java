package dev.tern.examples.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The blocking route guide (server on the generated blocking interface, client on the blocking V2
 * stub) over a real loopback socket, with the Netty transport found on the class path.
 */
class BlockingRouteGuideTest {
  @Test
  void theTourMakesAllFourKindsOfCallThroughTheBlockingApi() throws Exception {
    Server server = BlockingRouteGuideServer.start(0);
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try {
      new BlockingRouteGuideClient(channel, new PrintStream(printed, true, StandardCharsets.UTF_8))
          .runTour();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("GetFeature:   \"Tower Bridge\"")
        .contains("GetFeature:   nothing known at 0.0000, 0.0000")
        .contains("ListFeatures: 10 features")
        .contains("RecordRoute:  4 points, 4 known features")
        .contains("RouteChat:    got \"first note\"")
        .contains("RouteChat:    got \"second note\"");
  }
}
