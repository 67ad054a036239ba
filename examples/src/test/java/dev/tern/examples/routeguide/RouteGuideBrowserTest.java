package dev.tern.examples.routeguide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.examples.StaticFileServer;
import dev.tern.examples.ToolRunner;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The route guide called from a real browser: headless Chromium loads a page whose script (built
 * from {@code src/test/web} with connect-es and protoc-gen-es) calls GetFeature and ListFeatures
 * over Connect (JSON, binary, GET) and gRPC-Web. The page is served from another origin than the
 * server's, so the browser lets the calls through only if the server's CORS answer allows that
 * origin ({@code RouteGuideServer --cors-origin}).
 */
class RouteGuideBrowserTest {
  private static final Path WEB_CLIENT = Path.of("src/test/web/web-client.mjs");

  /** What the page shows when every call works: one line per transport. */
  private static final String EXPECTED_LINE =
      ",\"getFeature\":{\"name\":\"Tower Bridge\","
          + "\"location\":{\"latitude\":515055000,\"longitude\":-754000}},"
          + "\"listFeatures\":[\"Millennium Bridge\",\"Tate Modern\",\"Shakespeare's Globe\"]}";

  private static final List<String> TRANSPORTS =
      List.of("connect-json", "connect-proto", "connect-get", "grpc-web");

  @TempDir static Path dir;
  private static Path node;
  private static Path chromium;
  private static Path site;

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /**
   * Finds the tools (each test skips, or fails under CI, with a message naming what is missing) and
   * builds the page once for the class.
   */
  @BeforeEach
  void buildPage() throws Exception {
    node = ExternalTool.require(ExternalTool.NODE);
    chromium = ExternalTool.require(ExternalTool.CHROMIUM);
    ExternalTool.requireWebPackages();
    if (site == null) {
      Path out = dir.resolve("web");
      ToolRunner.run(dir, node, WEB_CLIENT.toString(), "build", out.toString());
      site = out.resolve("site");
    }
  }

  @Test
  void connectAndGrpcWebCallsFromAnAllowedOrigin() throws Exception {
    try (StaticFileServer page = StaticFileServer.start(site)) {
      Server server = startServer(page.origin());

      ToolRunner.Result result = openPage(page, server);

      StringBuilder expected = new StringBuilder();
      for (String transport : TRANSPORTS) {
        expected.append("{\"transport\":\"").append(transport).append('"');
        expected.append(EXPECTED_LINE).append('\n');
      }
      assertThat(result.out()).as(result.err()).isEqualTo(expected.toString());
      assertThat(result.exitCode()).isZero();
    }
  }

  @Test
  void theBrowserRefusesEveryCallFromAnotherOrigin() throws Exception {
    try (StaticFileServer page = StaticFileServer.start(site)) {
      // Allowed: some other site, not the page's.
      Server server = startServer("https://maps.example");

      ToolRunner.Result result = openPage(page, server);

      String failed = "{\"error\":\"Unknown: Failed to fetch\"}";
      StringBuilder expected = new StringBuilder();
      for (String transport : TRANSPORTS) {
        expected.append("{\"transport\":\"").append(transport).append('"');
        expected.append(",\"getFeature\":").append(failed);
        expected.append(",\"listFeatures\":").append(failed).append("}\n");
      }
      assertThat(result.out()).as(result.err()).isEqualTo(expected.toString());
      // Chromium says why, for each of the 8 calls, on the page's console.
      String blocked = "from origin '" + page.origin() + "' has been blocked by CORS policy";
      assertThat(result.err().lines().filter(line -> line.contains(blocked))).hasSize(8);
    }
  }

  private Server startServer(String corsOrigin) throws Exception {
    return cleanup.register(
        RouteGuideServer.start(0, new HealthStatusManager(), null, List.of(corsOrigin)));
  }

  private ToolRunner.Result openPage(StaticFileServer page, Server server) throws Exception {
    String url = page.origin() + "/index.html?server=http://127.0.0.1:" + server.getPort();
    return ToolRunner.result(
        dir,
        node,
        WEB_CLIENT.toString(),
        "open",
        url,
        "--chromium=" + chromium,
        // Within ToolRunner's 30 s, so a page that never finishes says what it showed.
        "--timeout-ms=20000");
  }
}
