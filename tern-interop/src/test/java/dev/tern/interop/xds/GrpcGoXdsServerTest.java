package dev.tern.interop.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.Status;
import dev.tern.interop.testing.ClientConfigureRequest;
import dev.tern.interop.testing.ClientConfigureRequest.RpcType;
import dev.tern.interop.testing.LoadBalancerAccumulatedStatsRequest;
import dev.tern.interop.testing.LoadBalancerStatsRequest;
import dev.tern.interop.testing.LoadBalancerStatsResponse;
import dev.tern.interop.testing.LoadBalancerStatsServiceTern;
import dev.tern.interop.testing.XdsUpdateClientConfigureServiceTern;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Tern's xds-test-client against grpc-go 1.64.1's xDS interop server (installed by
 * tools/install-xds-interop-tools.sh): the peer comes from grpc-go's {@code hostname} header, and
 * grpc-go obeys the {@code rpc-behavior} metadata (error-code, sleep, the hostname= prefix) that
 * Tern's client is configured to send through {@code XdsUpdateClientConfigureService}.
 */
@Tag("external-check") // not in mvn verify; -Pexternal-checks and CI: README.md#development
class GrpcGoXdsServerTest {
  private static final String SERVER = "grpc-go-xds-interop-server";

  private final List<AutoCloseable> closeLast = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
  }

  @Test
  void ternsClientCountsGrpcGosServerAndItsRpcBehaviors() throws Exception {
    Path program = ExternalTool.require(SERVER);
    int port = freePort();
    ToolProcess server =
        ToolProcess.start(
            SERVER,
            List.of(
                program.toString(),
                "--port=" + port,
                "--host_name_override=go-a",
                "--server_id=go-id"));
    closeLast.add(() -> server.stop(Duration.ofSeconds(10)));
    XdsTestClient.Running client =
        XdsTestClient.start(
            new XdsTestClient.Settings(
                "127.0.0.1:" + port,
                0,
                50,
                1,
                new ClientConfig(ClientConfig.parseTypes("UnaryCall,EmptyCall"), Map.of(), 20),
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

    // RPCs sent before grpc-go listens fail: wait (by asking) for a block with none failed.
    LoadBalancerStatsResponse served = null;
    for (int i = 0; i < 10 && (served == null || served.getNumFailures() > 0); i++) {
      assertThat(server.isAlive()).as("grpc-go's server exited: %s", server.output()).isTrue();
      served = nextRpcs(stats, 20);
    }
    assertThat(served.getNumFailures()).as(server.output()).isZero();
    assertThat(served.getRpcsByPeerMap()).isEqualTo(Map.of("go-a", 20));
    assertThat(served.getRpcsByMethodMap().get("UnaryCall").getRpcsByPeerMap())
        .isEqualTo(Map.of("go-a", 10));
    assertThat(served.getRpcsByMethodMap().get("EmptyCall").getRpcsByPeerMap())
        .isEqualTo(Map.of("go-a", 10));

    // grpc-go 1.64.1's server reads rpc-behavior in UnaryCall only (its EmptyCall ignores it).
    configure(stats, "error-code-5");
    LoadBalancerStatsResponse failing = nextRpcs(stats, 10);
    configure(stats, "hostname=go-a sleep-2");
    LoadBalancerStatsResponse slow = nextRpcs(stats, 5);
    configure(stats, "hostname=elsewhere error-code-5");
    LoadBalancerStatsResponse elsewhere = nextRpcs(stats, 5);
    Map<Integer, Integer> results = unaryCallResults(stats);

    assertThat(failing.getNumFailures()).isEqualTo(10);
    assertThat(slow.getNumFailures()).isEqualTo(5);
    assertThat(elsewhere.getNumFailures()).isZero();
    assertThat(elsewhere.getRpcsByPeerMap()).isEqualTo(Map.of("go-a", 5));
    assertThat(results.get(Status.Code.NOT_FOUND.value())).isGreaterThanOrEqualTo(10);
    assertThat(results.get(Status.Code.DEADLINE_EXCEEDED.value())).isGreaterThanOrEqualTo(5);
  }

  /** The client's UnaryCalls so far by status code (its accumulated stats). */
  static Map<Integer, Integer> unaryCallResults(ManagedChannel stats) {
    return LoadBalancerStatsServiceTern.newBlockingStub(stats)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .getClientAccumulatedStats(LoadBalancerAccumulatedStatsRequest.getDefaultInstance())
        .getStatsPerMethodMap()
        .get("UNARY_CALL")
        .getResultMap();
  }

  /** Makes Tern's client send only UnaryCall, with {@code rpc-behavior: behavior}, 1 s deadline. */
  private static void configure(ManagedChannel stats, String behavior) {
    XdsUpdateClientConfigureServiceTern.newBlockingStub(stats)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .configure(
            ClientConfigureRequest.newBuilder()
                .addTypes(RpcType.UNARY_CALL)
                .addMetadata(behavior(RpcType.UNARY_CALL, behavior))
                .setTimeoutSec(1)
                .build());
  }

  private static ClientConfigureRequest.Metadata behavior(RpcType type, String value) {
    return ClientConfigureRequest.Metadata.newBuilder()
        .setType(type)
        .setKey("rpc-behavior")
        .setValue(value)
        .build();
  }

  private static LoadBalancerStatsResponse nextRpcs(ManagedChannel stats, int numRpcs) {
    return LoadBalancerStatsServiceTern.newBlockingStub(stats)
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .getClientStats(
            LoadBalancerStatsRequest.newBuilder().setNumRpcs(numRpcs).setTimeoutSec(20).build());
  }

  /** A port the OS says is free now, for grpc-go's server, which takes only a fixed port. */
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
