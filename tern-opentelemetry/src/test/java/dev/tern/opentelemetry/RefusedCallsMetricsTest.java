package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
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
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tern's {@code tern.server.call.refused}: a call the server refuses at admission is counted with
 * its reason, over the Netty transport. (The deadline reasons are driven by a fake clock in
 * tern-core's {@code ServerCallDispatcherTest}; this test checks the metric the module makes of
 * them.)
 */
class RefusedCallsMetricsTest {
  /** Far longer than anything here takes; a bound so that a bug fails rather than hangs. */
  private static final long TIMEOUT_SECONDS = 10;

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void aCallOverMaxConcurrentCallsIsCountedAsRefusedWithItsReason() throws Exception {
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    GrpcOpenTelemetry otel = OtelFixture.metricsInto(metrics);
    CountDownLatch handlerStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ServerCalls.UnaryMethod<String, String> waiting =
        (request, response) -> {
          handlerStarted.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          response.onNext(request);
          response.onCompleted();
        };
    NettyServerBuilder serverBuilder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .maxConcurrentCalls(1)
            .addService(
                ServerServiceDefinition.builder(OtelFixture.SERVICE)
                    .addMethod(OtelFixture.UNARY, ServerCalls.asyncUnaryCall(waiting))
                    .build());
    otel.configureServerBuilder(serverBuilder);
    Server server = cleanup.register(serverBuilder.build().start());
    ManagedChannel channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());

    ClientCall<String, String> first = channel.newCall(OtelFixture.UNARY, CallOptions.DEFAULT);
    var firstAnswer = ClientCalls.futureUnaryCall(first, "first");
    assertThat(handlerStarted.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, OtelFixture.UNARY, CallOptions.DEFAULT, "second"))
        .satisfies(
            e ->
                assertThat(((StatusRuntimeException) e).getStatus().getCode())
                    .isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    release.countDown();
    assertThat(firstAnswer.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("first");

    Map<String, MetricData> collected = OtelFixture.collect(metrics);
    MetricData refused = collected.get("tern.server.call.refused");
    assertThat(refused).as("metrics: %s", collected.keySet()).isNotNull();
    assertThat(refused.getUnit()).isEqualTo("{call}");
    assertThat(
            refused.getLongSumData().getPoints().stream()
                .collect(Collectors.toMap(LongPointData::getAttributes, LongPointData::getValue)))
        .containsExactly(
            Map.entry(
                Attributes.of(AttributeKey.stringKey("tern.refusal"), "max_concurrent_calls"), 1L));
  }
}
