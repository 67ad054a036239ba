package dev.tern.interop.xds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.interop.testing.LoadBalancerStatsRequest;
import dev.tern.interop.testing.LoadBalancerStatsResponse;
import dev.tern.interop.testing.LoadBalancerStatsServiceTern;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import dev.tern.xds.Bootstrap;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real cross-implementation xDS results: grpc-java 1.79's own {@code XdsTestClient} (its own JVM)
 * and grpc-go 1.64.1's xDS interop client (tools/install-xds-interop-tools.sh), each run with
 * {@code GRPC_XDS_BOOTSTRAP} pointing at the test control plane, take {@code xds:///svc}'s
 * listener, routes, cluster (round robin) and endpoints from it and send to three of Tern's
 * xds-test-servers on 127.0.0.2-4, which EDS names. Tern asks the client for its stats through its
 * {@code LoadBalancerStatsService}, with Tern's generated stub.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class ForeignXdsClientsTest {
  private static final String NODE = "xds-interop-client";
  private static final String GRPC_GO_CLIENT = "grpc-go-xds-interop-client";
  private static final String GRPC_JAVA_CLIENT = "grpc-java-xds-test-client";
  private static final List<String> BACKENDS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

  private final List<AutoCloseable> closeLast = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
  }

  @Test
  void grpcJavasXdsClientReachesEveryTernBackendInRoundRobin(@TempDir Path dir) throws Exception {
    assertRoundRobinOverTernBackends(dir, GRPC_JAVA_CLIENT, grpcJavaXdsTestClientCommand(), false);
  }

  /**
   * grpc-java's client against Tern's xDS-enabled servers ({@code --secure_mode}, plaintext), which
   * serve only once the control plane has sent their server Listeners (A36).
   */
  @Test
  void grpcJavasXdsClientReachesTernsXdsEnabledServers(@TempDir Path dir) throws Exception {
    assertRoundRobinOverTernBackends(dir, GRPC_JAVA_CLIENT, grpcJavaXdsTestClientCommand(), true);
  }

  @Test
  void grpcGosXdsClientReachesEveryTernBackendInRoundRobin(@TempDir Path dir) throws Exception {
    Path program = ExternalTool.require(GRPC_GO_CLIENT);
    assertRoundRobinOverTernBackends(dir, GRPC_GO_CLIENT, List.of(program.toString()), false);
  }

  /**
   * The same with Tern's backends as xDS-enabled servers ({@code --secure_mode}, plaintext): each
   * serves only once the control plane has sent its server Listener (A36).
   */
  @Test
  void grpcGosXdsClientReachesTernsXdsEnabledServers(@TempDir Path dir) throws Exception {
    Path program = ExternalTool.require(GRPC_GO_CLIENT);
    assertRoundRobinOverTernBackends(dir, GRPC_GO_CLIENT, List.of(program.toString()), true);
  }

  /**
   * Runs {@code clientCommand} (an xDS interop client) with the xDS test client flags against three
   * Tern backends named by the control plane, and asserts what its stats say.
   */
  private void assertRoundRobinOverTernBackends(
      Path dir, String name, List<String> clientCommand, boolean xdsServers) throws Exception {
    TestControlPlane controlPlane = TestControlPlane.start();
    closeLast.add(controlPlane);
    String template = "grpc/server?xds.resource.listening_address=%s";
    Bootstrap serverBootstrap =
        Bootstrap.parse(
            controlPlane
                .bootstrap(NODE)
                .replaceFirst(
                    "\\{", "{\"server_listener_resource_name_template\": \"" + template + "\", "),
            "the servers' bootstrap");
    List<String> endpoints = new ArrayList<>();
    List<String> serverListeners = new ArrayList<>();
    for (String address : BACKENDS) {
      XdsTestServer.Running server =
          XdsTestServer.start(
              new XdsTestServer.Config(
                  address,
                  0,
                  xdsServers ? 0 : null,
                  "tern-" + address,
                  "tern-" + address,
                  xdsServers,
                  serverBootstrap));
      closeLast.add(server);
      endpoints.add(address + ":" + server.port());
      if (xdsServers) {
        serverListeners.add(
            TestControlPlane.serverListener(template, address + ":" + server.port()));
      }
    }
    controlPlane.serve(NODE, endpoints, serverListeners);
    Path bootstrap = dir.resolve("bootstrap.json");
    Files.writeString(bootstrap, controlPlane.bootstrap(NODE));
    int statsPort = freePort();
    List<String> command = new ArrayList<>(List.of("env", "GRPC_XDS_BOOTSTRAP=" + bootstrap));
    command.addAll(clientCommand);
    command.addAll(
        List.of("--server=xds:///svc", "--stats_port=" + statsPort, "--qps=60", "--rpc=UnaryCall"));
    ToolProcess client = ToolProcess.start(name, command);
    closeLast.add(() -> client.stop(Duration.ofSeconds(10)));
    ManagedChannel stats =
        NettyChannelBuilder.forAddress("127.0.0.1", statsPort).usePlaintext().build();
    closeLast.add(
        () -> {
          stats.shutdownNow();
          assertThat(stats.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        });
    // Until the client has its xDS configuration and every backend is ready, RPCs may fail or
    // miss backends: wait (by asking, each answer bounded by its timeout) for one block of RPCs
    // that reaches all three, then count the block after it.
    LoadBalancerStatsResponse warm = null;
    for (int i = 0; i < 10 && (warm == null || warm.getRpcsByPeerCount() < 3); i++) {
      assertThat(client.isAlive()).as("the client exited: %s", client.output()).isTrue();
      warm = nextRpcs(stats, 30);
    }
    assertThat(warm.getRpcsByPeerMap())
        .as("control plane: %s%nclient: %s", controlPlane.output(), client.output())
        .hasSize(3);
    LoadBalancerStatsResponse block = nextRpcs(stats, 90);

    assertThat(block.getNumFailures()).as(client.output()).isZero();
    assertThat(block.getRpcsByPeerMap())
        .containsOnlyKeys("tern-127.0.0.2", "tern-127.0.0.3", "tern-127.0.0.4");
    for (Map.Entry<String, Integer> peer : block.getRpcsByPeerMap().entrySet()) {
      assertThat(peer.getValue()).as(peer.getKey()).isBetween(29, 31);
    }
    assertThat(block.getRpcsByMethodMap().get("UnaryCall").getRpcsByPeerMap())
        .isEqualTo(block.getRpcsByPeerMap());
  }

  /** The peers of the next {@code numRpcs} RPCs the client sends (its stats; at most 10 s). */
  static LoadBalancerStatsResponse nextRpcs(ManagedChannel stats, int numRpcs) {
    return LoadBalancerStatsServiceTern.newBlockingStub(stats)
        .withWaitForReady()
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .getClientStats(
            LoadBalancerStatsRequest.newBuilder().setNumRpcs(numRpcs).setTimeoutSec(10).build());
  }

  /** The command running grpc-java's {@code XdsTestClient} in its own JVM. */
  static List<String> grpcJavaXdsTestClientCommand() throws IOException, InterruptedException {
    return List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp",
        grpcJavaClassPath(),
        "io.grpc.testing.integration.XdsTestClient");
  }

  /** grpc-java's interop programs with grpc-xds, resolved as tern-interop/peers resolves them. */
  static String grpcJavaClassPath() throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder("peers/grpc-java-classpath.sh")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String classPath = new String(process.getInputStream().readAllBytes(), UTF_8).strip();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("peers/grpc-java-classpath.sh").isZero();
    assertThat(classPath).contains("grpc-interop-testing-1.79.0.jar", "grpc-xds-1.79.0.jar");
    return classPath;
  }

  /** A port the OS says is free now, for grpc-java's client, which takes only a fixed port. */
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
