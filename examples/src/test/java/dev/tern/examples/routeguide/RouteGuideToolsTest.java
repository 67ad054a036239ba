package dev.tern.examples.routeguide;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.testing.ExternalTool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
                + " ( .tern.examples.routeguide.Feature );",
            "rpc RouteChat ( stream .tern.examples.routeguide.RouteNote ) returns"
                + " ( stream .tern.examples.routeguide.RouteNote );");
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

    assertThat(exec(probe, "-addr=" + address, service)).startsWith("exit 0").contains("SERVING");
    health.enterTerminalState();
    assertThat(exec(probe, "-addr=" + address, service))
        .startsWith("exit 4")
        .contains("NOT_SERVING");
    assertThat(exec(probe, "-addr=" + address)).startsWith("exit 4");
  }

  /** Runs the tool and returns its standard output; fails unless it exits 0. */
  private String run(Path tool, String... args) throws Exception {
    String result = exec(tool, args);
    assertThat(result).startsWith("exit 0\n");
    return result.substring("exit 0\n".length());
  }

  /** Runs the tool; returns "exit N\n" and then its output (standard error after standard out). */
  private String exec(Path tool, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(tool.toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    try {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
      return "exit "
          + process.exitValue()
          + "\n"
          + Files.readString(out, UTF_8)
          + Files.readString(err, UTF_8);
    } finally {
      process.destroyForcibly();
    }
  }
}
