package dev.tern.examples.routeguide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.examples.ToolRunner;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.testtools.ExternalTool;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the README promises a {@code bin/routeguide-server} user: grpcurl lists, describes and calls
 * the route guide with no {@code .proto} file, and grpc-health-probe reads its health, NOT_SERVING
 * once the server enters its terminal state (as the shutdown hook does).
 */
class RouteGuideToolsTest {
  @TempDir Path dir;
  private final HealthStatusManager health = new HealthStatusManager();
  private Server server;
  private String address;

  @BeforeEach
  void startServer() throws IOException {
    server = RouteGuideServer.start(0, health);
    address = "127.0.0.1:" + server.getPort();
  }

  @AfterEach
  void stopServer() throws InterruptedException {
    server.shutdownNow();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void grpcurlListsDescribesAndCallsWithoutAProtoFile() throws Exception {
    Path grpcurl = ExternalTool.require("grpcurl");

    assertThat(run(grpcurl, "-plaintext", address, "list"))
        .isEqualTo(
            "grpc.health.v1.Health\n"
                + "grpc.reflection.v1.ServerReflection\n"
                + "grpc.reflection.v1alpha.ServerReflection\n"
                + "tern.examples.routeguide.RouteGuide\n");
    assertThat(run(grpcurl, "-plaintext", address, "describe", RouteGuideTern.SERVICE_NAME))
        .contains(
            "rpc GetFeature ( .tern.examples.routeguide.Point ) returns"
                + " ( .tern.examples.routeguide.Feature ) {\n"
                + "    option idempotency_level = NO_SIDE_EFFECTS;\n"
                + "  }\n",
            "rpc RouteChat ( stream .tern.examples.routeguide.RouteNote ) returns"
                + " ( stream .tern.examples.routeguide.RouteNote );",
            // route_guide.proto's comments: reflection serves the build's descriptor set.
            "// The features inside a rectangle, streamed as they are found.\n");
    assertThat(
            run(
                grpcurl,
                "-plaintext",
                "-d",
                "{\"latitude\":515055000,\"longitude\":-754000}",
                address,
                RouteGuideTern.SERVICE_NAME + "/GetFeature"))
        .contains("\"name\": \"Tower Bridge\"");
  }

  @Test
  void grpcHealthProbeSeesServingThenNotServing() throws Exception {
    Path probe = ExternalTool.require("grpc-health-probe");
    String service = "-service=" + RouteGuideTern.SERVICE_NAME;
    // The probe's own limits are 1 s to connect and 1 s per call, which a loaded machine can miss
    // (a fresh JVM's first connection took 2 s at a load of 17); a slow machine is not what this
    // test is about.
    String slow = "-connect-timeout=20s";
    String rpc = "-rpc-timeout=20s";

    assertThat(exec(probe, "-addr=" + address, slow, rpc, service))
        .startsWith("exit 0")
        .contains("SERVING");
    health.enterTerminalState();
    assertThat(exec(probe, "-addr=" + address, slow, rpc, service))
        .startsWith("exit 4")
        .contains("NOT_SERVING");
    assertThat(exec(probe, "-addr=" + address, slow, rpc)).startsWith("exit 4");
  }

  private String run(Path tool, String... args) throws Exception {
    return ToolRunner.run(dir, tool, args);
  }

  private String exec(Path tool, String... args) throws Exception {
    return ToolRunner.exec(dir, tool, args);
  }
}
