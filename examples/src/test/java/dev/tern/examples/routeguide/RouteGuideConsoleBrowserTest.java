package dev.tern.examples.routeguide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.examples.ConsoleBrowser;
import dev.tern.examples.ToolRunner;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.testing.TernCleanupExtension;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Tern console in headless Chromium against the route guide server ({@code RouteGuideServer
 * --console}): {@code src/test/web/console-driver.mjs} uses the page as a person would (the
 * services list, the generated form, a stream, a bad argument, the state tables) and prints what
 * the page showed. Screenshots go to {@code -Dtern.console.screenshots=DIR} (docs/images when the
 * docs' pictures are remade), else to a temporary folder.
 */
class RouteGuideConsoleBrowserTest {
  @TempDir Path dir;

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void theConsoleListsCallsAndShowsTheRouteGuide() throws Exception {
    HealthStatusManager health = new HealthStatusManager();
    Server server = cleanup.register(RouteGuideServer.start(0, health, null, List.of(), true));

    ToolRunner.Result result =
        ConsoleBrowser.drive(dir, "console-driver.mjs", RouteGuideServer.consoleUrl(server));

    String out = result.out();
    assertThat(result.exitCode()).as(out + result.err()).isZero();
    assertThat(out)
        .as(result.err())
        .contains("\"state\":\"ready\"")
        .contains("\"tern.examples.routeguide.RouteGuide\"")
        .contains(
            "\"methods\":[\"GetFeature unary\",\"ListFeatures server streaming\","
                + "\"RecordRoute client streaming\",\"RouteChat bidi streaming\"]")
        // The first feature of route_guide_db.json.
        .contains("\"getFeatureStatus\":\"OK\"")
        .contains(
            "\"getFeature\":{\"name\":\"Tower Bridge\","
                + "\"location\":{\"latitude\":515055000,\"longitude\":-754000}}")
        .contains("grpcurl -plaintext -d '{\\\"latitude\\\":515055000,\\\"longitude\\\":-754000}'")
        .contains("\"searchShows\":[\"tern.examples.routeguide.RouteGuide\"]")
        // Comments of route_guide.proto, from the descriptor set the build wrote.
        .contains(
            "\"pointComment\":\"A point as latitude and longitude in E7 units (degrees times"
                + " 10^7), rounded to integers.\"")
        .contains(
            "\"listFeaturesComment\":\"The features inside a rectangle, streamed as they are"
                + " found.\"")
        .contains(
            "\"bufCurl\":\"buf curl --protocol connect -d '{\\\"lo\\\":{\\\"latitude\\\":515070000,"
                + "\\\"longitude\\\":-1000000},\\\"hi\\\":{\\\"latitude\\\":515100000,"
                + "\\\"longitude\\\":-970000}}' http://127.0.0.1:PORT/"
                + "tern.examples.routeguide.RouteGuide/ListFeatures\"")
        .contains("\"recordRouteStatus\":\"OK\"")
        // Tower Bridge and the Tower of London: two points, two features.
        .contains("\"recordRoute\":[{\"pointCount\":2,\"featureCount\":2}]")
        .contains("\"routeChatStatus\":\"OK\",\"routeChat\":[\"first\"]")
        .contains("\"listFeaturesStatus\":\"OK\"")
        .contains(
            "\"listFeatures\":[\"Millennium Bridge\",\"Tate Modern\",\"Shakespeare's Globe\"]")
        .contains("\"badStatus\":\"invalid_argument: not a point on Earth\"")
        .contains(
            "\"badDetails\":[{\"type\":\"google.rpc.BadRequest\",\"fieldViolations\":[{\"field\":"
                + "\"latitude\",\"description\":\"must be within ±900000000 (±90° in E7), was"
                + " 990000000\"}]}]")
        // Over gRPC-Web, the same answers, decoded from binary by the page.
        .contains("\"grpcWebGetFeatureStatus\":\"OK\"")
        .contains(
            "\"grpcWebGetFeature\":{\"name\":\"Tower Bridge\","
                + "\"location\":{\"latitude\":515055000,\"longitude\":-754000}}")
        .contains("\"grpcWebBadStatus\":\"invalid_argument: not a point on Earth\"")
        .contains(
            "\"grpcWebBadDetails\":[{\"type\":\"google.rpc.BadRequest\",\"fieldViolations\":"
                + "[{\"field\":\"latitude\",\"description\":\"must be within ±900000000 (±90° in"
                + " E7), was 990000000\"}]}]")
        .contains("\"grpcWebListFeaturesStatus\":\"OK\"")
        .contains(
            "\"grpcWebListFeatures\":[\"Millennium Bridge\",\"Tate Modern\","
                + "\"Shakespeare's Globe\"]")
        .contains(
            "\"grpcWebRecordRouteStatus\":\"OK\","
                + "\"grpcWebRecordRoute\":[{\"pointCount\":2,\"featureCount\":2}]")
        .contains("[\"tern.examples.routeguide.RouteGuide\",\"SERVING\"]")
        .contains("[\"grpc.health.v1.Health\",\"(no status set)\"]");
    // channelz: the server's row counts the calls above (3 GetFeature/ListFeatures calls, the
    // reflection calls, and the health checks): at least 5 started, and failed ones (the bad
    // argument; health's NOT_FOUND for services without a status) with a last call time.
    assertThat(out)
        .containsPattern(
            "\"channelz\":\\[\\[\"\\d+\",\"(\\d{2,}|[5-9])\",\"\\d+\",\"[1-9]\\d*\",\"\\d{4}-");
    assertThat(out).doesNotContain("\"sockets\":0");
    // The server's counts per method: GetFeature four times (Tower Bridge, then the bad latitude,
    // over Connect and over gRPC-Web), one message in each and one out for the calls that
    // succeeded; a mean time.
    assertThat(out)
        .containsPattern(
            "\\[\"tern.examples.routeguide.RouteGuide/GetFeature\",\"4\","
                + "\"OK 2, INVALID_ARGUMENT 2\",\"4 / 2\",\"\\d+ / \\d+\",\"\\d+\\.\\d ms\"\\]")
        .containsPattern(
            "\\[\"tern.examples.routeguide.RouteGuide/RecordRoute\",\"2\",\"OK 2\",\"4 / 2\",");
    for (String view : List.of("services", "call", "stream", "error", "state")) {
      assertThat(ConsoleBrowser.screenshots(dir).resolve("console-" + view + ".png"))
          .isNotEmptyFile();
    }
  }
}
