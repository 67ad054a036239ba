package dev.tern.examples.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The blocking route guide (server on the generated blocking interface, client on the blocking V2
 * stub) over a real loopback socket, with the Netty transport found on the class path.
 */
class BlockingRouteGuideTest {
  private Server server;
  private ManagedChannel channel;
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

  @BeforeEach
  void startServerAndChannel() throws Exception {
    server = BlockingRouteGuideServer.start(0);
    channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
  }

  @AfterEach
  void shutDown() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  private BlockingRouteGuideClient client() {
    return new BlockingRouteGuideClient(
        channel, new PrintStream(printed, true, StandardCharsets.UTF_8));
  }

  @Test
  void theTourMakesAllFourKindsOfCallThroughTheBlockingApi() throws Exception {
    client().runTour();

    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("GetFeature:   \"Tower Bridge\"")
        .contains("GetFeature:   nothing known at 0.0000, 0.0000")
        .contains("ListFeatures: 10 features")
        .contains("RecordRoute:  4 points, 4 known features")
        .contains("RouteChat:    got \"first note\"")
        .contains("RouteChat:    got \"second note\"");
  }

  @Test
  void aSecondChatGetsBackEveryNoteLeftBefore() throws Exception {
    BlockingRouteGuideClient client = client();
    client.routeChat(dev.tern.examples.routeguide.Tour.NOTES);

    // Two notes at each of two places: the first chat got 2 back (0 + 0 + 1 + 1); the second
    // finds two at each place already, 2 + 2 + 3 + 3.
    assertThat(client.routeChat(dev.tern.examples.routeguide.Tour.NOTES)).isEqualTo(10);
  }
}
