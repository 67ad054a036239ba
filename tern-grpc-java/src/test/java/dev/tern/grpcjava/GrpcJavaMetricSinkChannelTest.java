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
import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.TestServiceGrpc;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A grpc-java {@code MetricSink} added to a bridged channel builder the way grpc-opentelemetry adds
 * its own ({@code InternalManagedChannelBuilder.addMetricSink}) hears the channel's subchannel
 * metrics after a real call to a Tern server, under grpc-core's instruments, with the channel's
 * target as its label, and only the metrics it enables. {@code GrpcJavaMetricSinkTest} (in the
 * metrics package) shows the instrument matching and gauges.
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
  void aNullSinkIsRefusedNamingIt() {
    ManagedChannelBuilder<?> builder =
        Grpc.newChannelBuilder(
            "127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create());

    assertThatThrownBy(() -> InternalManagedChannelBuilder.addMetricSink(builder, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("metricSink");
  }
}
