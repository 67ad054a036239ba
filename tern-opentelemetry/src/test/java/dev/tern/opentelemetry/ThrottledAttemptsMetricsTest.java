package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TernCleanupExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tern's {@code tern.client.attempt.throttled}: an attempt the channel's adaptive throttling
 * refuses locally is counted, once, with its method, over the Netty transport. (The throttle's
 * decisions are driven by a fake clock and dice in tern-core's {@code BackendThrottleTest}; this
 * test checks the metric made of them.)
 */
class ThrottledAttemptsMetricsTest {
  /** Enough calls that the throttle, facing a server that refuses them all, refuses some. */
  private static final int CALLS = 40;

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void attemptsTheThrottleRefusesAreCountedAndOnlyThose() throws Exception {
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    GrpcOpenTelemetry otel = OtelFixture.metricsInto(metrics);
    ServerCalls.UnaryMethod<String, String> refusing =
        (request, response) ->
            response.onError(
                Status.RESOURCE_EXHAUSTED.withDescription("overloaded").asRuntimeException());
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(
                    ServerServiceDefinition.builder(OtelFixture.SERVICE)
                        .addMethod(OtelFixture.UNARY, ServerCalls.asyncUnaryCall(refusing))
                        .build())
                .build()
                .start());
    ManagedChannelBuilder<?> channelBuilder =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .adaptiveThrottling(1.0);
    otel.configureChannelBuilder(channelBuilder);
    ManagedChannel channel = cleanup.register(channelBuilder.build());

    int throttled = 0;
    for (int i = 0; i < CALLS; i++) {
      try {
        ClientCalls.blockingUnaryCall(channel, OtelFixture.UNARY, CallOptions.DEFAULT, "call");
        throw new AssertionError("the server refuses every call, but call " + i + " succeeded");
      } catch (StatusRuntimeException e) {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        if (e.getStatus().getDescription().startsWith("client-side throttling")) {
          throttled++;
        }
      }
    }

    assertThat(throttled).as("calls the throttle refused of %d", CALLS).isPositive();
    Map<String, MetricData> collected = OtelFixture.collect(metrics);
    MetricData counted = collected.get("tern.client.attempt.throttled");
    assertThat(counted).as("metrics: %s", collected.keySet()).isNotNull();
    assertThat(counted.getUnit()).isEqualTo("{attempt}");
    List<LongPointData> points = List.copyOf(counted.getLongSumData().getPoints());
    assertThat(points).hasSize(1);
    assertThat(points.get(0).getValue()).isEqualTo(throttled);
    assertThat(points.get(0).getAttributes().get(AttributeKey.stringKey("grpc.method")))
        .isEqualTo(OtelFixture.UNARY.getFullMethodName());
    MetricData started = collected.get("grpc.client.attempt.started");
    assertThat(
            started.getLongSumData().getPoints().stream().mapToLong(LongPointData::getValue).sum())
        .as("every call is one attempt, throttled or sent")
        .isEqualTo(CALLS);
  }
}
