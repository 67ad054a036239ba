package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.BIDI;
import static dev.tern.internal.channel.ClientTestSupport.UNARY;
import static dev.tern.internal.channel.ClientTestSupport.headers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.ConfigSelector;
import dev.tern.ForwardingClientCall;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.LogCapture;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import dev.tern.internal.wire.GrpcHeaders;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A channel whose name resolver supplies a {@link ConfigSelector}, over fake transports and a fake
 * clock: each call gets the configuration the selector chose for it as it started (method config,
 * interceptor, or an error), calls made before the first resolution wait and are then configured,
 * and a new selector applies to new calls only.
 */
class ConfigSelectorChannelTest {
  private static final SocketAddress A = InetSocketAddress.createUnresolved("a.example", 443);
  private static final Metadata.Key<String> ROUTE =
      Metadata.Key.of("x-route", Metadata.ASCII_STRING_MARSHALLER);

  private final ChannelFixture fixture = new ChannelFixture();

  ConfigSelectorChannelTest() {
    fixture.useFakeResolvers();
  }

  @AfterEach
  void shutDownChannel() {
    if (fixture.channel != null) {
      fixture.channel.shutdownNow();
    }
  }

  /** A selector that answers from {@code choose} and remembers the calls it was asked about. */
  private static final class Selector extends ConfigSelector {
    final List<String> asked = new ArrayList<>();
    final Function<PickSubchannelArgs, Result> choose;

    Selector(Function<PickSubchannelArgs, Result> choose) {
      this.choose = choose;
    }

    @Override
    public Result select(PickSubchannelArgs call) {
      asked.add(call.getMethodDescriptor().getFullMethodName());
      return choose.apply(call);
    }
  }

  private Object methodConfig(String json) {
    return fixture.resolver().parseMethodConfig(json);
  }

  private RecordingListener start(MethodDescriptor<String, String> method, CallOptions options) {
    return start(method, options, headers("x"));
  }

  private RecordingListener start(
      MethodDescriptor<String, String> method, CallOptions options, Metadata headers) {
    RecordingListener listener = new RecordingListener();
    ClientCall<String, String> call = fixture.channel.newCall(method, options);
    call.start(listener, headers);
    call.request(1);
    call.sendMessage("req");
    call.halfClose();
    return listener;
  }

  /** Builds the channel and lets it start its resolver. */
  private void buildAndConnect() {
    fixture.build();
    fixture.channel.getState(true);
  }

  @Test
  void eachCallGetsTheConfigTheSelectorChoseForItsMethod() {
    buildAndConnect();
    Object oneSecond = methodConfig("{\"timeout\": \"1s\"}");
    Object fiveSeconds = methodConfig("{\"timeout\": \"5s\"}");
    Selector selector =
        new Selector(
            call ->
                ConfigSelector.Result.forConfig(
                    call.getMethodDescriptor() == UNARY ? oneSecond : fiveSeconds, null));
    fixture.resolver().resolveWithSelector(selector, null, A);
    FakeClientTransport transport = fixture.readyTransport();

    start(UNARY, CallOptions.DEFAULT);
    start(BIDI, CallOptions.DEFAULT);

    assertThat(selector.asked).containsExactly("test.Echo/Unary", "test.Echo/Bidi");
    assertThat(transport.stream(0).headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("1000000u");
    assertThat(transport.stream(1).headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("5000000u");
  }

  @Test
  void theSelectorChoosesByTheCallsHeaders() {
    buildAndConnect();
    Object slow = methodConfig("{\"timeout\": \"9s\"}");
    Selector selector =
        new Selector(
            call ->
                "slow".equals(call.getHeaders().get(ROUTE))
                    ? ConfigSelector.Result.forConfig(slow, null)
                    : ConfigSelector.Result.noConfig());
    fixture.resolver().resolveWithSelector(selector, null, A);
    FakeClientTransport transport = fixture.readyTransport();
    Metadata slowHeaders = new Metadata();
    slowHeaders.put(ROUTE, "slow");

    start(UNARY, CallOptions.DEFAULT, slowHeaders);
    start(UNARY, CallOptions.DEFAULT);

    assertThat(transport.stream(0).headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("9000000u");
    assertThat(transport.stream(1).headers.get(GrpcHeaders.TIMEOUT)).isNull();
  }

  @Test
  void aSelectorsErrorFailsTheCallWithThatStatusAndSendsNothing() {
    buildAndConnect();
    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(
                call ->
                    ConfigSelector.Result.forError(
                        Status.UNAVAILABLE.withDescription("no route for test.Echo"))),
            null,
            A);
    FakeClientTransport transport = fixture.readyTransport();

    RecordingListener call = start(UNARY, CallOptions.DEFAULT);

    assertThat(call.events()).containsExactly("close UNAVAILABLE");
    assertThat(call.status.getDescription()).isEqualTo("no route for test.Echo");
    assertThat(transport.streamCount()).isZero();
  }

  @Test
  void theSelectorsInterceptorRunsForTheCallsItChose() {
    buildAndConnect();
    ClientInterceptor tagging =
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(
                next.newCall(method, options)) {
              @Override
              public void start(Listener<RespT> listener, Metadata headers) {
                headers.put(ROUTE, "tagged");
                super.start(listener, headers);
              }
            };
          }
        };
    Object timeout = methodConfig("{\"timeout\": \"3s\"}");
    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(call -> ConfigSelector.Result.forConfig(timeout, tagging)), null, A);
    FakeClientTransport transport = fixture.readyTransport();

    start(UNARY, CallOptions.DEFAULT);

    assertThat(transport.lastStream().headers.get(ROUTE)).isEqualTo("tagged");
    assertThat(transport.lastStream().headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("3000000u");
  }

  @Test
  void readinessSignalledAsTheChosenCallStartsIsTrueWhenTheListenerAsks() {
    buildAndConnect();
    // A call that says it is ready from inside its start, as a real call's stream may from its own
    // thread before the waiting call has replayed everything onto it.
    ClientInterceptor readyOnStart =
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(
                next.newCall(method, options)) {
              @Override
              public void start(Listener<RespT> listener, Metadata headers) {
                super.start(listener, headers);
                listener.onReady();
              }

              @Override
              public boolean isReady() {
                return true;
              }
            };
          }
        };
    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(call -> ConfigSelector.Result.forConfig(null, readyOnStart)), null, A);
    fixture.readyTransport();
    ClientCall<String, String> call = fixture.channel.newCall(BIDI, CallOptions.DEFAULT);
    List<Boolean> readyWhenSignalled = new ArrayList<>();

    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onReady() {
            readyWhenSignalled.add(call.isReady());
          }
        },
        headers("x"));

    // Said once: had isReady() answered false then, a caller waiting for readiness
    // (BlockingClientCall.write) would have waited until the deadline.
    assertThat(readyWhenSignalled).containsExactly(true);
    call.cancel("done", null);
  }

  @Test
  void theSelectorsRetryPolicyRetriesTheCall() {
    buildAndConnect();
    Object retry =
        methodConfig(
            "{\"retryPolicy\": {\"maxAttempts\": 2, \"initialBackoff\": \"0.1s\","
                + " \"maxBackoff\": \"1s\", \"backoffMultiplier\": 2,"
                + " \"retryableStatusCodes\": [\"UNAVAILABLE\"]}}");
    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(call -> ConfigSelector.Result.forConfig(retry, null)), null, A);
    FakeClientTransport transport = fixture.readyTransport();
    RecordingListener call = start(UNARY, CallOptions.DEFAULT);

    transport.lastStream().serverClose(Status.UNAVAILABLE);
    fixture.clock.forwardTime(1, TimeUnit.SECONDS);
    transport.lastStream().serverClose(Status.OK);

    assertThat(transport.streamCount()).isEqualTo(2);
    assertThat(call.events()).containsExactly("close OK");
  }

  @Test
  void theSelectorReplacesTheServiceConfigsMethodConfigsUntilAResultComesWithoutOne() {
    buildAndConnect();
    String serviceConfig =
        "{\"methodConfig\": [{\"name\": [{\"service\": \"test.Echo\"}], \"timeout\": \"2s\"}]}";
    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(call -> ConfigSelector.Result.noConfig()), serviceConfig, A);
    FakeClientTransport transport = fixture.readyTransport();

    start(UNARY, CallOptions.DEFAULT);
    fixture.resolver().resolveWithConfig(serviceConfig, A);
    start(UNARY, CallOptions.DEFAULT);

    assertThat(transport.stream(0).headers.get(GrpcHeaders.TIMEOUT)).isNull();
    assertThat(transport.stream(1).headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("2000000u");
  }

  @Test
  void aCallMadeBeforeTheFirstResolutionWaitsAndIsThenConfigured() {
    fixture.build();
    RecordingListener early = start(UNARY, CallOptions.DEFAULT);
    fixture.clock.forwardTime(500, TimeUnit.MILLISECONDS);
    assertThat(early.isClosed()).isFalse();

    Object timeout = methodConfig("{\"timeout\": \"2s\"}");
    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(call -> ConfigSelector.Result.forConfig(timeout, null)), null, A);
    FakeClientTransport transport = fixture.readyTransport();

    FakeClientStream stream = transport.lastStream();
    assertThat(stream.headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("2000000u");
    assertThat(stream.messages).containsExactly("req"); // the recorded operations, replayed
    fixture.clock.forwardTime(1999, TimeUnit.MILLISECONDS);
    assertThat(early.isClosed()).isFalse();
    fixture.clock.forwardTime(1, TimeUnit.MILLISECONDS);
    assertThat(early.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
  }

  @Test
  void aNewSelectorAppliesToNewCallsOnly() {
    buildAndConnect();
    Object oneSecond = methodConfig("{\"timeout\": \"1s\"}");
    Object tenSeconds = methodConfig("{\"timeout\": \"10s\"}");
    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(call -> ConfigSelector.Result.forConfig(oneSecond, null)), null, A);
    FakeClientTransport transport = fixture.readyTransport();
    RecordingListener first = start(UNARY, CallOptions.DEFAULT);

    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(call -> ConfigSelector.Result.forConfig(tenSeconds, null)), null, A);
    RecordingListener second = start(UNARY, CallOptions.DEFAULT);
    fixture.clock.forwardTime(1, TimeUnit.SECONDS);

    assertThat(transport.lastStream().headers.get(GrpcHeaders.TIMEOUT)).isEqualTo("10000000u");
    assertThat(first.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(second.isClosed()).isFalse();
  }

  @Test
  void cancellingAWaitingCallEndsItAtOnceAndItNeverGetsAStream() {
    fixture.build();
    RecordingListener listener = new RecordingListener();
    ClientCall<String, String> call = fixture.channel.newCall(UNARY, CallOptions.DEFAULT);
    call.start(listener, headers("x"));
    call.request(1);

    call.cancel("user gave up", null);

    assertThat(listener.events()).containsExactly("close CANCELLED");
    assertThat(listener.status.getDescription()).isEqualTo("user gave up");
    fixture.resolver().resolve(A);
    assertThat(fixture.readyTransport().streamCount()).isZero();
    assertThat(listener.closeCount()).isEqualTo(1);
  }

  @Test
  void aWaitingCallsDeadlineIsEnforcedBeforeAnyConfigArrives() {
    fixture.build();
    RecordingListener call =
        start(UNARY, CallOptions.DEFAULT.withDeadline(fixture.deadlineAfter(1, TimeUnit.SECONDS)));

    fixture.clock.forwardTime(1, TimeUnit.SECONDS);

    assertThat(call.events()).containsExactly("close DEADLINE_EXCEEDED");
    fixture.resolver().resolve(A);
    assertThat(fixture.readyTransport().streamCount()).isZero();
  }

  @Test
  void shutdownFailsTheCallsWaitingForTheFirstResolution() {
    fixture.build();
    RecordingListener waiting = start(UNARY, CallOptions.DEFAULT);

    fixture.channel.shutdown();

    assertThat(waiting.events()).containsExactly("close UNAVAILABLE");
    assertThat(waiting.status.getDescription()).isEqualTo("Channel shutdown invoked");
    RecordingListener later = start(UNARY, CallOptions.DEFAULT);
    assertThat(later.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(fixture.channel.isTerminated()).isTrue();
  }

  @Test
  void aMalformedMethodConfigIsRefusedWhenParsedNamingTheField() {
    fixture.build();
    fixture.channel.getState(true);

    assertThatThrownBy(() -> methodConfig("{\"timeout\": \"-1s\"}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("methodConfig.timeout");
    assertThatThrownBy(() -> methodConfig("{\"retryPolicy\": {\"maxAttempts\": 1}}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> methodConfig("{\"waitForReady\": \"yes\"}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("waitForReady");
  }

  @Test
  void aMethodConfigTheChannelDidNotParseFailsTheCallSayingSo() {
    buildAndConnect();
    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(call -> ConfigSelector.Result.forConfig(Map.of("timeout", "1s"), null)),
            null,
            A);

    RecordingListener call = start(UNARY, CallOptions.DEFAULT);

    assertThat(call.status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(call.status.getDescription()).contains("parseMethodConfig");
  }

  @Test
  void aSelectorThatThrowsFailsTheCallWithInternal() throws Exception {
    buildAndConnect();
    fixture
        .resolver()
        .resolveWithSelector(
            new Selector(
                call -> {
                  throw new IllegalStateException("route table broken");
                }),
            null,
            A);

    try (LogCapture logs = new LogCapture(ConfiguringChannel.class)) {
      RecordingListener call = start(UNARY, CallOptions.DEFAULT);

      assertThat(call.status.getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(call.status.getDescription()).contains("route table broken");
      assertThat(logs.records).hasSize(1);
    }
  }

  @Test
  void anErrorResultMustNotBeOk() {
    assertThatThrownBy(() -> ConfigSelector.Result.forError(Status.OK))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
