package dev.tern.services.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.health.v1.HealthTern;
import dev.tern.testing.TernCleanupExtension;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Client-side health checking across implementations: Tern's round_robin watching grpc-java's
 * health service, and grpc-java's round_robin watching Tern's. The calls are health {@code Check}s
 * (the one service both servers have); one that succeeds went to a server its channel holds
 * healthy, and with the only server NOT_SERVING fail-fast calls fail UNAVAILABLE.
 */
class HealthCheckingInteropTest {
  private static final String CONFIG =
      "{\"loadBalancingConfig\": [{\"round_robin\": {}}], \"healthCheckConfig\": {\"serviceName\":"
          + " \"\"}}";

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** Waits up to ten seconds for {@code condition}, trying it again after each call it makes. */
  private static void await(Supplier<Boolean> condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.get()) {
      assertThat(System.nanoTime() - deadline).as(what + " within 10 s").isNegative();
    }
  }

  @Test
  void ternChannelFollowsTheHealthOfAGrpcJavaServer() throws Exception {
    io.grpc.protobuf.services.HealthStatusManager health =
        new io.grpc.protobuf.services.HealthStatusManager();
    io.grpc.Server server =
        io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
                new InetSocketAddress("127.0.0.1", 0))
            .addService(health.getHealthService())
            .build()
            .start();
    try {
      ManagedChannel channel =
          cleanup.register(
              NettyChannelBuilder.forTarget("ipv4:127.0.0.1:" + server.getPort())
                  .usePlaintext()
                  .defaultServiceConfigJson(CONFIG)
                  .build());
      HealthTern.HealthBlockingStub stub = HealthTern.newBlockingStub(channel);
      Supplier<String> check =
          () -> {
            try {
              return stub.withDeadlineAfter(5, TimeUnit.SECONDS)
                  .check(HealthCheckRequest.getDefaultInstance())
                  .getStatus()
                  .name();
            } catch (StatusRuntimeException e) {
              return e.getStatus().getCode() + ": " + e.getStatus().getDescription();
            }
          };
      assertThat(
              stub.withWaitForReady()
                  .withDeadlineAfter(5, TimeUnit.SECONDS)
                  .check(HealthCheckRequest.getDefaultInstance())
                  .getStatus())
          .isEqualTo(ServingStatus.SERVING);

      health.setStatus("", HealthCheckResponse.ServingStatus.NOT_SERVING);
      String[] last = new String[1];
      await(
          () -> (last[0] = check.get()).startsWith("UNAVAILABLE"),
          "fail-fast calls failing once the server says NOT_SERVING");
      assertThat(last[0])
          .contains("health check of service '' at [/127.0.0.1:")
          .endsWith("the server says NOT_SERVING");

      health.setStatus("", HealthCheckResponse.ServingStatus.SERVING);
      await(() -> check.get().equals("SERVING"), "calls succeeding once it says SERVING again");
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void grpcJavaChannelFollowsTheHealthOfATernServer() throws Exception {
    HealthStatusManager health = new HealthStatusManager();
    Server server =
        cleanup
            .register(
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .addService(health.getHealthService())
                    .build())
            .start();
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    io.grpc.ManagedChannel channel =
        io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", port)
            .usePlaintext()
            .defaultServiceConfig(
                Map.of(
                    "loadBalancingConfig",
                    List.of(Map.of("round_robin", Map.of())),
                    "healthCheckConfig",
                    Map.of("serviceName", "")))
            .build();
    try {
      HealthGrpc.HealthBlockingStub stub = HealthGrpc.newBlockingStub(channel);
      Supplier<String> check =
          () -> {
            try {
              return stub.withDeadlineAfter(5, TimeUnit.SECONDS)
                  .check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance())
                  .getStatus()
                  .name();
            } catch (io.grpc.StatusRuntimeException e) {
              return e.getStatus().getCode().name();
            }
          };
      assertThat(
              stub.withWaitForReady()
                  .withDeadlineAfter(5, TimeUnit.SECONDS)
                  .check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance())
                  .getStatus())
          .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

      health.setStatus("", ServingStatus.NOT_SERVING);
      await(
          () -> check.get().equals("UNAVAILABLE"),
          "grpc-java's fail-fast calls failing once the server says NOT_SERVING");
      health.setStatus("", ServingStatus.SERVING);
      await(() -> check.get().equals("SERVING"), "calls succeeding once it says SERVING again");
    } finally {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }
}
