package dev.tern.services.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import io.grpc.health.v1.HealthCheckResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The real health clients (grpc-health-probe, grpcio's health client) against Tern's health service
 * and, side by side, grpc-java's own ({@code io.grpc.protobuf.services .HealthStatusManager}) with
 * the same statuses: they give the same answers (List aside, which grpc-java's service does not
 * have).
 */
class HealthToolsTest {
  private static final String UP = "helloworld.Greeter";
  private static final String DOWN = "routeguide.RouteGuide";
  private static final String UNKNOWN = "no.Such";

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final HealthStatusManager tern = new HealthStatusManager();
  private final io.grpc.protobuf.services.HealthStatusManager grpcJava =
      new io.grpc.protobuf.services.HealthStatusManager();
  private io.grpc.Server grpcJavaServer;
  private String ternAddress;
  private String grpcJavaAddress;

  @BeforeEach
  void startServers() throws IOException {
    tern.setStatus(UP, ServingStatus.SERVING);
    tern.setStatus(DOWN, ServingStatus.NOT_SERVING);
    grpcJava.setStatus(UP, HealthCheckResponse.ServingStatus.SERVING);
    grpcJava.setStatus(DOWN, HealthCheckResponse.ServingStatus.NOT_SERVING);
    Server server =
        cleanup
            .register(
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .addService(tern.getHealthService())
                    .build())
            .start();
    ternAddress = "127.0.0.1:" + ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    grpcJavaServer =
        io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
                new InetSocketAddress("127.0.0.1", 0))
            .addService(grpcJava.getHealthService())
            .build()
            .start();
    grpcJavaAddress = "127.0.0.1:" + grpcJavaServer.getPort();
  }

  @AfterEach
  void stopGrpcJava() throws InterruptedException {
    grpcJavaServer.shutdownNow();
    assertThat(grpcJavaServer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  /** The exit code and output of a process; it is killed if it runs for more than 30 s. */
  private record Run(int exitCode, String output) {}

  private static Run run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      process.getOutputStream().close();
      byte[] output = process.getInputStream().readAllBytes(); // ends when the process does
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("%s finishes", command).isTrue();
      return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8).trim());
    } finally {
      process.destroyForcibly();
    }
  }

  private static Run probe(String address, String service)
      throws IOException, InterruptedException {
    Path probe = ExternalTool.require("grpc-health-probe");
    // Timeouts longer than the 1 s defaults: a loaded machine's first connection can take longer.
    List<String> command =
        new ArrayList<>(
            List.of(
                probe.toString(), "-addr=" + address, "-connect-timeout=20s", "-rpc-timeout=20s"));
    if (service != null) {
      command.add("-service=" + service);
    }
    return run(command);
  }

  @Test
  void grpcHealthProbeGetsTheSameAnswersAndExitCodesFromBoth() throws Exception {
    for (String service : new String[] {null, UP, DOWN, UNKNOWN}) {
      Run fromTern = probe(ternAddress, service);
      Run fromGrpcJava = probe(grpcJavaAddress, service);
      assertThat(fromTern.exitCode())
          .as("exit code for %s", service)
          .isEqualTo(fromGrpcJava.exitCode());
      assertThat(fromTern.output().replace(ternAddress, "ADDR"))
          .as("output for %s", service)
          .isEqualTo(fromGrpcJava.output().replace(grpcJavaAddress, "ADDR"));
    }
    assertThat(probe(ternAddress, null)).isEqualTo(new Run(0, "status: SERVING"));
    assertThat(probe(ternAddress, UP)).isEqualTo(new Run(0, "status: SERVING"));
    Run down = probe(ternAddress, DOWN);
    assertThat(down.exitCode()).isEqualTo(4); // grpc-health-probe: "unhealthy"
    assertThat(down.output()).contains("NOT_SERVING");
    Run unknown = probe(ternAddress, UNKNOWN);
    assertThat(unknown.exitCode()).isEqualTo(3); // the Check RPC failed (NOT_FOUND)
    assertThat(unknown.output()).contains("NotFound");

    tern.enterTerminalState();
    grpcJava.enterTerminalState();
    Run terminal = probe(ternAddress, null);
    assertThat(terminal.exitCode()).isEqualTo(4);
    assertThat(terminal).isEqualTo(probe(grpcJavaAddress, null));
  }

  @Test
  void grpcioHealthClientGetsTheSameAnswersFromBoth() throws Exception {
    Path python = ExternalTool.requirePython();
    Path script = Path.of("src/test/python/health_client.py").toAbsolutePath();
    List<String> services = List.of("", UP, DOWN, UNKNOWN);
    List<String> ternCommand = new ArrayList<>(List.of(python.toString(), script.toString()));
    ternCommand.add(ternAddress);
    ternCommand.addAll(services);
    List<String> grpcJavaCommand = new ArrayList<>(ternCommand);
    grpcJavaCommand.set(2, grpcJavaAddress);

    Run fromTern = run(ternCommand);
    Run fromGrpcJava = run(grpcJavaCommand);

    assertThat(fromTern.exitCode()).as(fromTern.output()).isZero();
    assertThat(fromGrpcJava.exitCode()).as(fromGrpcJava.output()).isZero();
    List<String> ternLines = fromTern.output().lines().toList();
    List<String> grpcJavaLines = fromGrpcJava.output().lines().toList();
    assertThat(ternLines)
        .containsExactly(
            "check '': SERVING",
            "watch '': SERVING",
            "check 'helloworld.Greeter': SERVING",
            "watch 'helloworld.Greeter': SERVING",
            "check 'routeguide.RouteGuide': NOT_SERVING",
            "watch 'routeguide.RouteGuide': NOT_SERVING",
            "check 'no.Such': NOT_FOUND",
            "watch 'no.Such': SERVICE_UNKNOWN",
            "list: ''=SERVING, 'helloworld.Greeter'=SERVING, 'routeguide.RouteGuide'=NOT_SERVING");
    // Everything but List (grpc-java's health service does not have it) is the same.
    assertThat(ternLines.subList(0, 8)).isEqualTo(grpcJavaLines.subList(0, 8));
    assertThat(grpcJavaLines.get(8)).isEqualTo("list: UNIMPLEMENTED");
  }
}
