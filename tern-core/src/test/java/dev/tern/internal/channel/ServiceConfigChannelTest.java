package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.CUSTOM;
import static dev.tern.internal.channel.ClientTestSupport.UNARY;
import static dev.tern.internal.channel.ClientTestSupport.headers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.LoadBalancerRegistry;
import dev.tern.Status;
import dev.tern.internal.LogCapture;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import dev.tern.internal.config.ServiceConfigParser;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A channel and its service config, over fake transports and a fake clock: where the config comes
 * from (default, resolver, neither), what a method config does to calls (timeout, wait-for-ready,
 * message limits, retries), what happens to calls that start before the config is known, and how an
 * invalid config from the resolver is survived.
 */
class ServiceConfigChannelTest {
  private static final SocketAddress A = InetSocketAddress.createUnresolved("a.example", 443);
  private static final SocketAddress B = InetSocketAddress.createUnresolved("b.example", 443);

  private static final String TIMEOUT_CONFIG =
      "{\"methodConfig\": [{\"name\": [{\"service\": \"test.Echo\"}], \"timeout\": \"2s\"}]}";
  private static final String RETRY_CONFIG =
      "{\"methodConfig\": [{\"name\": [{\"service\": \"test.Echo\", \"method\": \"Unary\"}],"
          + " \"retryPolicy\": {\"maxAttempts\": 3, \"initialBackoff\": \"0.1s\","
          + " \"maxBackoff\": \"1s\", \"backoffMultiplier\": 2,"
          + " \"retryableStatusCodes\": [\"UNAVAILABLE\"]}}]}";

  private final ChannelFixture fixture = new ChannelFixture();

  ServiceConfigChannelTest() {
    fixture.useFakeResolvers();
  }

  @AfterEach
  void shutDownChannel() {
    if (fixture.channel != null) {
      fixture.channel.shutdownNow();
    }
  }

  private void useDefaultConfig(String json, boolean lookUp) {
    fixture.serviceConfigOptions =
        new ServiceConfigOptions(
            json == null
                ? null
                : ServiceConfigParser.parseJson(json, LoadBalancerRegistry.getDefaultRegistry()),
            lookUp,
            true,
            5,
            5,
            16 << 20,
            1 << 20);
  }

  private RecordingListener start(CallOptions options, String marker) {
    RecordingListener listener = new RecordingListener();
    ClientCall<String, String> call = fixture.channel.newCall(UNARY, options);
    call.start(listener, headers(marker));
    call.request(1);
    call.sendMessage("req");
    call.halfClose();
    return listener;
  }

  @Test
  void defaultConfigTimeoutBoundsACallWithoutDeadline() {
    useDefaultConfig(TIMEOUT_CONFIG, false);
    fixture.build();
    RecordingListener call = start(CallOptions.DEFAULT, "x");
    fixture.resolver().resolve(A);
    FakeClientTransport transport = fixture.readyTransport();

    assertThat(transport.lastStream().headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("2000000u");
    fixture.clock.forwardTime(2, TimeUnit.SECONDS);
    assertThat(call.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
  }

  @Test
  void callsStartedBeforeTheResolverAnswersGetItsConfig() {
    fixture.build();
    RecordingListener early = start(CallOptions.DEFAULT, "early");
    fixture.clock.forwardTime(500, TimeUnit.MILLISECONDS); // the config's clock starts later

    fixture.resolver().resolveWithConfig(TIMEOUT_CONFIG, A);
    FakeClientTransport transport = fixture.readyTransport();

    assertThat(transport.lastStream().headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("2000000u");
    fixture.clock.forwardTime(2, TimeUnit.SECONDS);
    assertThat(early.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
  }

  @Test
  void anEarlierCallerDeadlineWins() {
    useDefaultConfig(TIMEOUT_CONFIG, false);
    fixture.build();
    start(CallOptions.DEFAULT.withDeadline(fixture.deadlineAfter(1, TimeUnit.SECONDS)), "x");
    fixture.resolver().resolve(A);
    assertThat(fixture.readyTransport().lastStream().headers.get(GrpcHeaders.TIMEOUT))
        .isEqualTo("1000000u");
  }

  @Test
  void waitForReadyFromTheConfigKeepsAFailFastCallWaiting() {
    useDefaultConfig("{\"methodConfig\": [{\"name\": [{}], \"waitForReady\": true}]}", false);
    fixture.build();
    RecordingListener call = start(CallOptions.DEFAULT, "x");
    fixture.resolver().fail(Status.UNAVAILABLE.withDescription("dns down"));
    assertThat(call.isClosed()).isFalse();

    fixture.clock.forwardTime(1, TimeUnit.SECONDS);
    fixture.resolver().resolve(A);
    fixture.readyTransport().lastStream().serverClose(Status.OK);
    assertThat(call.events()).containsExactly("close OK");
  }

  @Test
  void messageLimitsFromTheConfigReachTheStream() {
    useDefaultConfig(
        "{\"methodConfig\": [{\"name\": [{}], \"maxRequestMessageBytes\": 100,"
            + " \"maxResponseMessageBytes\": 200}]}",
        false);
    fixture.build();
    start(CallOptions.DEFAULT.withMaxOutboundMessageSize(50), "x");
    fixture.resolver().resolve(A);
    FakeClientStream stream = fixture.readyTransport().lastStream();
    assertThat(stream.maxOutbound()).isEqualTo(50); // the smaller of the caller's and the config's
    assertThat(stream.maxInbound()).isEqualTo(200);
  }

  @Test
  void resolverConfigRetriesAFailedCall() {
    fixture.build();
    RecordingListener call = start(CallOptions.DEFAULT, "x");
    fixture.resolver().resolveWithConfig(RETRY_CONFIG, A);
    FakeClientTransport transport = fixture.readyTransport();
    transport.lastStream().serverClose(Status.UNAVAILABLE);
    fixture.clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(transport.streamCount()).isEqualTo(2);
    assertThat(transport.lastStream().headers.get(GrpcHeaders.PREVIOUS_RPC_ATTEMPTS))
        .isEqualTo("1");
    transport.lastStream().serverClose(Status.OK);
    assertThat(call.events()).containsExactly("close OK");
  }

  @Test
  void aCallCommittedByItsRequestsSizeIsStillRetriedTransparentlyWhenNotProcessed() {
    // A per-call buffer of 2 bytes: the 3-byte request commits the call to its first attempt,
    // whose stream the server then refuses (or that never leaves the client): it was not
    // processed, so it is sent again on a new stream whatever the policy could still do.
    fixture.serviceConfigOptions = new ServiceConfigOptions(null, true, true, 5, 5, 16 << 20, 2);
    fixture.build();
    RecordingListener call = start(CallOptions.DEFAULT, "x");
    fixture.resolver().resolveWithConfig(RETRY_CONFIG, A);
    FakeClientTransport transport = fixture.readyTransport();

    transport.lastStream().refuse(RpcProgress.REFUSED);
    transport.lastStream().refuse(RpcProgress.DROPPED);

    assertThat(call.isClosed()).isFalse();
    assertThat(transport.streamCount()).isEqualTo(3);
    assertThat(transport.lastStream().headers.get(CUSTOM)).isEqualTo("x");
    assertThat(transport.lastStream().ops())
        .containsExactly("start", "request 1", "message req", "halfClose");
    transport.lastStream().deliverMessage("ok");
    transport.lastStream().serverClose(Status.OK);
    assertThat(call.events()).containsExactly("message ok", "close OK");
  }

  @Test
  void disableRetryIgnoresTheRetryPolicy() {
    fixture.serviceConfigOptions =
        new ServiceConfigOptions(null, true, false, 5, 5, 16 << 20, 1 << 20);
    fixture.build();
    RecordingListener notRetried = start(CallOptions.DEFAULT, "y");
    fixture.resolver().resolveWithConfig(RETRY_CONFIG, A);
    fixture.readyTransport().lastStream().serverClose(Status.UNAVAILABLE);
    assertThat(notRetried.events()).containsExactly("close UNAVAILABLE");
  }

  @Test
  void lookUpOffIgnoresTheResolversConfig() {
    useDefaultConfig(null, false);
    fixture.build();
    start(CallOptions.DEFAULT, "x");
    fixture.resolver().resolveWithConfig(TIMEOUT_CONFIG, A);
    assertThat(fixture.readyTransport().lastStream().headers.get(GrpcHeaders.TIMEOUT)).isNull();
  }

  @Test
  void invalidResolverConfigKeepsTheLastGoodOneAndIsLoggedOnce() throws Exception {
    fixture.build();
    start(CallOptions.DEFAULT, "first");
    fixture.resolver().resolveWithConfig(TIMEOUT_CONFIG, A);
    FakeClientTransport transport = fixture.readyTransport();
    String bad = "{\"methodConfig\": [{\"name\": [{}], \"timeout\": \"-1s\"}]}";

    try (LogCapture logs = new LogCapture(ServiceConfigSelector.class)) {
      fixture.resolver().resolveWithConfig(bad, A);
      fixture.resolver().resolveWithConfig(bad, A);
      start(CallOptions.DEFAULT, "second");

      assertThat(transport.lastStream().headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("2000000u");
      assertThat(logs.records).hasSize(1);
      assertThat(logs.records.get(0).getLevel()).isEqualTo(Level.WARNING);
      assertThat(logs.records.get(0).getMessage())
          .contains("methodConfig[0].timeout")
          .contains("keeping the last good one");
    }
  }

  @Test
  void invalidFirstConfigWithNoOtherFailsCallsNamingTheField() throws Exception {
    fixture.build();
    RecordingListener call = start(CallOptions.DEFAULT, "x");
    try (LogCapture logs = new LogCapture(ServiceConfigSelector.class)) {
      fixture
          .resolver()
          .resolveWithConfig(
              "{\"methodConfig\": [{\"name\": [{}], \"retryPolicy\": {\"maxAttempts\": 1}}]}", A);
      assertThat(logs.records).hasSize(1);
    }
    assertThat(call.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(call.status.getDescription())
        .contains("invalid service config")
        .contains("maxAttempts");
  }

  @Test
  void invalidFirstConfigFallsBackOnTheDefault() throws Exception {
    useDefaultConfig(TIMEOUT_CONFIG, true);
    fixture.build();
    start(CallOptions.DEFAULT, "x");
    try (LogCapture logs = new LogCapture(ServiceConfigSelector.class)) {
      fixture.resolver().resolveWithConfig("{\"loadBalancingConfig\": [{\"no_such\": {}}]}", A);
      assertThat(logs.records.get(0).getMessage()).contains("using the default one");
    }
    assertThat(fixture.readyTransport().lastStream().headers.get(GrpcHeaders.TIMEOUT))
        .isEqualTo("2000000u");
  }

  @Test
  void loadBalancingConfigSwitchesThePolicy() {
    fixture.build();
    fixture.channel.getState(true);
    fixture.resolver().resolve(A, B);
    assertThat(fixture.factory.transportCount()).isEqualTo(1); // pick_first: one at a time

    fixture
        .resolver()
        .resolveWithConfig("{\"loadBalancingConfig\": [{\"round_robin\": {}}]}", A, B);

    assertThat(fixture.factory.transport(0).isShutdown()).isTrue();
    assertThat(fixture.factory.transportCount()).isEqualTo(3); // round_robin: both, afresh
  }
}
