package dev.tern.interop.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.interop.testing.LoadBalancerStatsRequest;
import dev.tern.interop.testing.LoadBalancerStatsResponse;
import dev.tern.interop.testing.LoadBalancerStatsServiceTern;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Tern's xDS test client with {@code --server=xds:///svc} (its xds resolver and balancers, the
 * bootstrap in the {@code io.grpc.xds.bootstrapConfig} property) against other implementations' xDS
 * test servers named by a real control plane (go-control-plane): grpc-go 1.64.1's and grpc-java
 * 1.79's. The peers are told apart by the {@code hostname} each server reports.
 */
class TernXdsClientTest {
  private static final String NODE = "tern-xds-test-client";
  private static final String BOOTSTRAP_PROPERTY = "io.grpc.xds.bootstrapConfig";
  private static final String GRPC_GO_SERVER = "grpc-go-xds-interop-server";

  private final List<AutoCloseable> closeLast = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
  }

  @Test
  void ternsXdsClientBalancesOverGrpcGosXdsServers() throws Exception {
    Path program = ExternalTool.require(GRPC_GO_SERVER);
    List<String> endpoints = new ArrayList<>();
    for (String name : List.of("go-a", "go-b", "go-c")) {
      int port = freePort();
      ToolProcess server =
          ToolProcess.start(
              GRPC_GO_SERVER,
              List.of(program.toString(), "--port=" + port, "--host_name_override=" + name));
      closeLast.add(() -> server.stop(Duration.ofSeconds(10)));
      endpoints.add("127.0.0.1:" + port);
    }
    ManagedChannel stats = ternClientOver(endpoints);

    LoadBalancerStatsResponse block = warmThenCount(stats, 3, 90);
    assertThat(block.getNumFailures()).isZero();
    assertThat(block.getRpcsByPeerMap()).containsOnlyKeys("go-a", "go-b", "go-c");
    for (Map.Entry<String, Integer> peer : block.getRpcsByPeerMap().entrySet()) {
      assertThat(peer.getValue()).as(peer.getKey()).isBetween(29, 31);
    }
  }

  @Test
  void ternsXdsClientReachesGrpcJavasXdsServer() throws Exception {
    // Skips without the control plane before resolving grpc-java's programs from Maven Central (46
    // s on a machine that had none of them), which it would otherwise do for nothing.
    ExternalTool.require(ExternalTool.XDS_CONTROLPLANE);
    int port = freePort();
    ToolProcess server =
        ToolProcess.start(
            "grpc-java-xds-test-server",
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                ForeignXdsClientsTest.grpcJavaClassPath(),
                "io.grpc.testing.integration.XdsTestServer",
                "--port=" + port,
                "--maintenance_port=" + port,
                "--server_id=java-1"));
    closeLast.add(() -> server.stop(Duration.ofSeconds(10)));
    ManagedChannel stats = ternClientOver(List.of("127.0.0.1:" + port));

    LoadBalancerStatsResponse block = warmThenCount(stats, 1, 40);
    assertThat(block.getNumFailures()).as(server.output()).isZero();
    // grpc-java's server reports the machine's host name: one peer, every call.
    assertThat(block.getRpcsByPeerMap()).hasSize(1);
    assertThat(block.getRpcsByPeerMap().values()).containsExactly(40);
  }

  /**
   * Serves {@code endpoints} as svc's one round-robin cluster and starts Tern's xDS test client on
   * {@code xds:///svc}; returns a channel to its stats service.
   */
  private ManagedChannel ternClientOver(List<String> endpoints) throws Exception {
    TestControlPlane controlPlane = TestControlPlane.start();
    closeLast.add(controlPlane);
    controlPlane.serve(NODE, endpoints);
    System.setProperty(BOOTSTRAP_PROPERTY, controlPlane.bootstrap(NODE));
    closeLast.add(() -> System.clearProperty(BOOTSTRAP_PROPERTY));
    XdsTestClient.Running client =
        XdsTestClient.start(
            new XdsTestClient.Settings(
                "xds:///svc",
                0,
                60,
                1,
                new ClientConfig(ClientConfig.parseTypes("UnaryCall"), Map.of(), 20),
                false,
                false),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    closeLast.add(client);
    ManagedChannel stats =
        NettyChannelBuilder.forAddress("127.0.0.1", client.statsPort()).usePlaintext().build();
    closeLast.add(
        () -> {
          stats.shutdownNow();
          assertThat(stats.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        });
    return stats;
  }

  /**
   * Until the client has its xDS configuration and every server is ready, RPCs may fail or miss
   * servers: asks (each answer bounded by its timeout) for blocks until one reaches {@code peers}
   * servers with none failed, then returns the block of {@code count} after it.
   */
  private static LoadBalancerStatsResponse warmThenCount(
      ManagedChannel stats, int peers, int count) {
    LoadBalancerStatsResponse warm = null;
    for (int i = 0;
        i < 10 && (warm == null || warm.getRpcsByPeerCount() < peers || warm.getNumFailures() > 0);
        i++) {
      warm = nextRpcs(stats, 30);
    }
    assertThat(warm.getRpcsByPeerCount()).as("servers reached while warming up").isEqualTo(peers);
    return nextRpcs(stats, count);
  }

  private static LoadBalancerStatsResponse nextRpcs(ManagedChannel stats, int numRpcs) {
    return LoadBalancerStatsServiceTern.newBlockingStub(stats)
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .getClientStats(
            LoadBalancerStatsRequest.newBuilder().setNumRpcs(numRpcs).setTimeoutSec(10).build());
  }

  /** A port the OS says is free now, for the servers that take only a fixed port. */
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
