package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.UNARY;
import static dev.tern.internal.channel.ClientTestSupport.headers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.EquivalentAddressGroup;
import dev.tern.Grpc;
import dev.tern.MetricInstruments;
import dev.tern.MetricRecorder;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * gRFC A94's subchannel metrics, recorded by a channel with fake transports and a fake clock into a
 * recording sink: what a dashboard of connection attempts, disconnections and open connections
 * would show.
 */
class SubchannelMetricsTest {
  private static final SocketAddress A = InetSocketAddress.createUnresolved("a.example", 443);
  private static final SocketAddress B = InetSocketAddress.createUnresolved("b.example", 443);
  private static final String TARGET = "dns:///test-target";

  private final ChannelFixture fixture = new ChannelFixture();
  private final RecordingMetricSink sink = new RecordingMetricSink();

  SubchannelMetricsTest() {
    fixture.useFakeResolvers();
    fixture.metricRecorder = MetricRecorder.of(TARGET, List.of(sink));
  }

  @AfterEach
  void shutDownChannel() {
    if (fixture.channel != null) {
      fixture.channel.shutdownNow();
    }
  }

  private RecordingListener startCall() {
    RecordingListener listener = new RecordingListener();
    var call = fixture.channel.newCall(UNARY, CallOptions.DEFAULT.withWaitForReady());
    call.start(listener, headers("x"));
    return listener;
  }

  @Test
  void failedAttemptSuccessGoAwayAndShutdownAreCountedWithTheirLabels() {
    fixture.build();
    startCall();
    fixture.resolver().resolve(A);
    fixture
        .factory
        .transport(0)
        .failToConnect(Status.UNAVAILABLE.withCause(new IOException("Connection refused")));
    assertThat(sink.recordings())
        .containsExactly("grpc.subchannel.connection_attempts_failed 1 [" + TARGET + "] [, ]");

    fixture.clock.forwardTime(1, TimeUnit.SECONDS); // the back-off ends; pick_first reconnects
    FakeClientTransport second = fixture.factory.last();
    second.setAttributes(
        Attributes.newBuilder()
            .set(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL, SecurityLevel.PRIVACY_AND_INTEGRITY)
            .build());
    second.ready();
    second.goAway(Status.UNAVAILABLE.withDescription("GOAWAY received: NO_ERROR, debug data: bye"));

    assertThat(sink.recordings())
        .containsExactly(
            "grpc.subchannel.connection_attempts_failed 1 [" + TARGET + "] [, ]",
            "grpc.subchannel.connection_attempts_succeeded 1 [" + TARGET + "] [, ]",
            "grpc.subchannel.open_connections 1 [" + TARGET + "] [privacy_and_integrity, , ]",
            "grpc.subchannel.open_connections -1 [" + TARGET + "] [privacy_and_integrity, , ]",
            "grpc.subchannel.disconnections 1 [" + TARGET + "] [, , GOAWAY NO_ERROR]");
  }

  @Test
  void backendServiceAndLocalityComeFromTheAddressesAndShutdownIsTheReason() {
    fixture.build();
    startCall();
    Attributes xds =
        Attributes.newBuilder()
            .set(MetricInstruments.BACKEND_SERVICE_ATTRIBUTE, "cluster-a")
            .set(MetricInstruments.LOCALITY_ATTRIBUTE, "{region=\"r\", zone=\"z\", sub_zone=\"s\"}")
            .build();
    fixture.resolver().resolve(List.of(new EquivalentAddressGroup(List.of(A), xds)));
    fixture.factory.transport(0).ready();
    fixture.channel.shutdownNow();

    String labels = "cluster-a, {region=\"r\", zone=\"z\", sub_zone=\"s\"}";
    assertThat(sink.recordings())
        .containsExactly(
            "grpc.subchannel.connection_attempts_succeeded 1 [" + TARGET + "] [" + labels + "]",
            "grpc.subchannel.open_connections 1 [" + TARGET + "] [none, " + labels + "]",
            "grpc.subchannel.open_connections -1 [" + TARGET + "] [none, " + labels + "]",
            "grpc.subchannel.disconnections 1 ["
                + TARGET
                + "] ["
                + labels
                + ", subchannel shutdown]");
  }

  @Test
  void anAttemptCutShortByShutdownIsNeitherSucceededNorFailed() {
    fixture.build();
    startCall();
    fixture.resolver().resolve(A, B);
    fixture.clock.forwardTime(250, TimeUnit.MILLISECONDS); // happy eyeballs starts B
    fixture.factory.transport(1).ready(); // B wins; A's attempt is shut down

    assertThat(sink.recordingsOf(MetricInstruments.SUBCHANNEL_CONNECTION_ATTEMPTS_SUCCEEDED))
        .hasSize(1);
    assertThat(sink.recordingsOf(MetricInstruments.SUBCHANNEL_CONNECTION_ATTEMPTS_FAILED))
        .isEmpty();
    assertThat(fixture.factory.transport(0).isShutdown()).isTrue();
  }

  @Test
  void disconnectErrorsNameTheirReasonAsA94Lists() {
    assertThat(
            SubchannelMetrics.disconnectError(
                Status.UNAVAILABLE.withDescription("GOAWAY received: ENHANCE_YOUR_CALM")))
        .isEqualTo("GOAWAY ENHANCE_YOUR_CALM");
    assertThat(
            SubchannelMetrics.disconnectError(
                Status.UNAVAILABLE.withCause(new IOException("Connection reset by peer"))))
        .isEqualTo("connection reset");
    assertThat(
            SubchannelMetrics.disconnectError(
                Status.UNAVAILABLE.withDescription("Keepalive failed: no ping ack")))
        .isEqualTo("connection timed out");
    assertThat(
            SubchannelMetrics.disconnectError(
                Status.UNAVAILABLE.withCause(new IOException("Broken pipe"))))
        .isEqualTo("socket error");
    assertThat(SubchannelMetrics.disconnectError(Status.UNAVAILABLE.withDescription("?")))
        .isEqualTo("unknown");
    assertThat(SubchannelMetrics.disconnectError(null)).isEqualTo("subchannel shutdown");
  }
}
