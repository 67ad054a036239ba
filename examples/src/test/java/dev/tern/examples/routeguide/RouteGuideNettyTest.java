package dev.tern.examples.routeguide;

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
 * The route guide's tour over a real loopback socket: the server and channel found through {@code
 * ServerBuilder.forPort} and {@code ManagedChannelBuilder.forAddress}, i.e. by the Netty transport
 * on the class path, as {@code bin/demo} runs it.
 */
class RouteGuideNettyTest {
  @Test
  void theTourMakesAllFourKindsOfCallOverHttp2() throws Exception {
    Server server = RouteGuideServer.start(0);
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try {
      new RouteGuideClient(channel, new PrintStream(printed, true, StandardCharsets.UTF_8))
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
        .contains("10 features")
        .contains("RecordRoute:  4 points, 4 known features")
        .contains("RouteChat:    got \"first note\"")
        .contains("RouteChat:    got \"second note\"");
  }
}
