package dev.tern.examples.routeguide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The route guide's four calls through the generated stubs, over the in-process transport. */
class RouteGuideTest {
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private Server server;
  private ManagedChannel channel;
  private RouteGuideClient client;

  @BeforeEach
  void start() throws IOException {
    String name = "routeguide-" + UUID.randomUUID();
    server =
        InProcessServerBuilder.forName(name)
            .addService(new RouteGuideService(FeatureDatabase.load()))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
    client = new RouteGuideClient(channel, new PrintStream(printed, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void getFeatureNamesAKnownPointAndNothingElsewhere() {
    assertThat(client.getFeature(515055000, -754000).getName()).isEqualTo("Tower Bridge");
    assertThat(client.getFeature(0, 0).getName()).isEmpty();
  }

  @Test
  void listFeaturesStreamsEveryNamedFeatureInTheRectangle() {
    Rectangle cityOfLondon =
        Rectangle.newBuilder()
            .setLo(Point.newBuilder().setLatitude(515000000).setLongitude(-1000000))
            .setHi(Point.newBuilder().setLatitude(515200000).setLongitude(-750000))
            .build();

    assertThat(client.listFeatures(cityOfLondon)).isEqualTo(10);
    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("\"St Paul's Cathedral\"", "\"Tower of London\"")
        .doesNotContain("Big Ben");
  }

  @Test
  void recordRouteSummarisesThePointsSent() {
    RouteSummary summary =
        client.recordRoute(
            List.of(point(515138000, -984000), point(515095000, -985000), point(0, 0)));

    assertThat(summary.getPointCount()).isEqualTo(3);
    assertThat(summary.getFeatureCount()).isEqualTo(2);
    assertThat(summary.getDistance()).isGreaterThan(5_000_000);
  }

  @Test
  void routeChatAnswersEachNoteWithTheEarlierNotesAtItsPoint() {
    int received =
        client.routeChat(
            List.of(note("a", 1), note("b", 2), note("c", 1), note("d", 2), note("e", 1)));

    // c sees a; d sees b; e sees a and c.
    assertThat(received).isEqualTo(4);
  }

  @Test
  void aMalformedDatabaseIsRejectedWithTheProblemNamed() {
    assertThatThrownBy(
            () -> FeatureDatabase.parse("{\"feature\": [{\"name\": \"x\", \"location\": 3}]}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("json:")
        .hasMessageContaining("3");
    assertThatThrownBy(() -> FeatureDatabase.parse("{\"feature\": [{\"name\": \"x\""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("json:");
  }

  private static Point point(int latitude, int longitude) {
    return Point.newBuilder().setLatitude(latitude).setLongitude(longitude).build();
  }

  private static RouteNote note(String message, int longitude) {
    return RouteNote.newBuilder().setMessage(message).setLocation(point(0, longitude)).build();
  }
}
