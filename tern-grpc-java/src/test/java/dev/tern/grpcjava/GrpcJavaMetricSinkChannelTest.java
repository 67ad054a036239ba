package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.grpcjava.internal.metrics.RecordingGrpcJavaSink;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InternalManagedChannelBuilder;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.opentelemetry.GrpcOpenTelemetry;
import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.TestServiceGrpc;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A grpc-java {@code MetricSink} added to a bridged channel builder the way grpc-opentelemetry adds
 * its own ({@code InternalManagedChannelBuilder.addMetricSink}) hears the channel's subchannel
 * metrics after a real call to a Tern server, under grpc-core's instruments, with the channel's
 * target as its label, and only the metrics it enables; grpc-opentelemetry's own sink exports them
 * to the OpenTelemetry SDK. {@code GrpcJavaMetricSinkTest} (in the metrics package) shows the
 * instrument matching and gauges.
 */
class GrpcJavaMetricSinkChannelTest {
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server = Peers.testServer(scheduler);
  }

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, scheduler);
  }

  @Test
  void theSinkHearsTheSubchannelConnectUnderItsTarget() throws Exception {
    String succeeded = "grpc.subchannel.connection_attempts_succeeded";
    RecordingGrpcJavaSink sink = RecordingGrpcJavaSink.enabling(succeeded);
    ManagedChannelBuilder<?> builder =
        Grpc.newChannelBuilder(
            "127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create());
    channel = InternalManagedChannelBuilder.addMetricSink(builder, sink).build();

    TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance());
    Peers.close(channel);

    // open_connections and disconnections were recorded too (the connection opened and closed),
    // but this sink does not enable them.
    assertThat(sink.recordings())
        .containsExactly(succeeded + " 1 [dns:///127.0.0.1:" + server.getPort() + "] [, ]");
    assertThat(sink.instruments().get(0).getDescription()).startsWith("EXPERIMENTAL.");
  }

  @Test
  void grpcOpenTelemetryExportsTheSubchannelMetricsItEnables() throws Exception {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
            .build()) {
      GrpcOpenTelemetry otel =
          GrpcOpenTelemetry.newBuilder()
              .sdk(sdk)
              .enableMetrics(
                  List.of(
                      "grpc.subchannel.connection_attempts_succeeded",
                      "grpc.subchannel.open_connections"))
              .addOptionalLabel("grpc.security_level")
              .build();
      ManagedChannelBuilder<?> builder =
          Grpc.newChannelBuilder(
              "127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create());
      otel.configureChannelBuilder(builder);
      channel = builder.build();

      TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance());

      Map<String, MetricData> metrics =
          reader.collectAllMetrics().stream()
              .collect(Collectors.toMap(MetricData::getName, Function.identity()));
      AttributeKey<String> target = AttributeKey.stringKey("grpc.target");
      String dnsTarget = "dns:///127.0.0.1:" + server.getPort();
      LongPointData succeeded = onlyPoint(metrics, "grpc.subchannel.connection_attempts_succeeded");
      assertThat(succeeded.getValue()).isEqualTo(1);
      assertThat(succeeded.getAttributes()).isEqualTo(Attributes.of(target, dnsTarget));
      LongPointData open = onlyPoint(metrics, "grpc.subchannel.open_connections");
      assertThat(open.getValue()).isEqualTo(1);
      assertThat(open.getAttributes())
          .isEqualTo(
              Attributes.of(
                  target, dnsTarget, AttributeKey.stringKey("grpc.security_level"), "none"));
      assertThat(metrics).doesNotContainKey("grpc.subchannel.disconnections");
    }
  }

  private static LongPointData onlyPoint(Map<String, MetricData> metrics, String name) {
    assertThat(metrics).containsKey(name);
    Collection<LongPointData> points = metrics.get(name).getLongSumData().getPoints();
    assertThat(points).hasSize(1);
    return points.iterator().next();
  }

  @Test
  void aNullSinkIsRefusedNamingIt() {
    ManagedChannelBuilder<?> builder =
        Grpc.newChannelBuilder(
            "127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create());

    assertThatThrownBy(() -> InternalManagedChannelBuilder.addMetricSink(builder, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("metricSink");
  }
}
