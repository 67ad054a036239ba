package dev.tern.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.Grpc;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.RecordingClientCallListener.Closed;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The transport conformance suite at the API level: a real server and channel (the runtime) over
 * the transport under test, serving {@link EchoService} and {@link ProbeService}, without stubs.
 * Checks what a user of channels and servers sees: the four call shapes, metadata, size limits,
 * deadlines, cancellation, shutdown, errors, transport filters and flow control.
 *
 * <p>Subclasses return builders: {@link #newServerBuilder()} for a server on an ephemeral port or a
 * fresh in-process name, {@link #newChannelBuilder(Server)} for a channel to a started server, both
 * with default limits. Optionally {@link #newClientTransport(Server)} gives a raw client transport
 * to the server, for the tests that must send what the client runtime never would. Everything is
 * shut down after each test by {@link TernCleanupExtension}, which also fails a test that leaves a
 * call or a thread behind.
 */
public abstract class AbstractChannelServerTest {
  /** Shuts down servers and channels after each test and checks nothing was left behind. */
  @RegisterExtension protected final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final Metadata.Key<String> ECHO_INITIAL_ASCII =
      Metadata.Key.of(EchoService.ECHO_INITIAL_PREFIX + "ascii", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> ECHO_INITIAL_BINARY =
      Metadata.Key.of(
          EchoService.ECHO_INITIAL_PREFIX + "data-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private static final Metadata.Key<String> ECHO_TRAILING_ASCII =
      Metadata.Key.of(EchoService.ECHO_TRAILING_PREFIX + "ascii", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> ECHO_TRAILING_BINARY =
      Metadata.Key.of(
          EchoService.ECHO_TRAILING_PREFIX + "data-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private static final Metadata.Key<String> PLAIN_KEY =
      Metadata.Key.of("tern-test-plain", Metadata.ASCII_STRING_MARSHALLER);

  /** The probe handlers of the current test. */
  protected final ProbeService probe = new ProbeService();

  /** Sees the connections of every server started by {@link #startServer}. */
  protected final RecordingTransportFilter filter = new RecordingTransportFilter();

  /** The server of the current test, started. */
  protected Server server;

  /** A channel to {@link #server}. */
  protected ManagedChannel channel;

  private final List<RecordingClientCallListener<?>> callListeners = new ArrayList<>();

  /** A builder for a server on an ephemeral port or a fresh in-process name; default limits. */
  protected abstract ServerBuilder<?> newServerBuilder();

  /** A builder for a channel to {@code server} (started); default limits. */
  protected abstract ManagedChannelBuilder<?> newChannelBuilder(Server server);

  /**
   * A raw client transport to {@code server}, not started, for tests that send what the client
   * runtime never would (a malformed {@code grpc-timeout}); null (the default) skips those tests.
   */
  protected ManagedClientTransport newClientTransport(Server server) {
    return null;
  }

  @BeforeEach
  protected void setUpServerAndChannel() throws IOException {
    server = startServer(builder -> {});
    channel = newChannel(server, builder -> {});
  }

  @AfterEach
  protected void checkCallListeners() {
    List<String> violations = new ArrayList<>();
    for (RecordingClientCallListener<?> listener : callListeners) {
      violations.addAll(listener.violations());
    }
    assertThat(violations).as("ClientCall.Listener contract breaches").isEmpty();
  }

  // ---------------------------------------------------------------- helpers

  /** Starts a server with the echo and probe services and the recording filter, then more. */
  protected final Server startServer(Consumer<ServerBuilder<?>> configure) throws IOException {
    ServerBuilder<?> builder = newServerBuilder();
    builder.addService(EchoService.definition());
    builder.addService(probe.definition());
    builder.addTransportFilter(filter);
    configure.accept(builder);
    Server started = cleanup.register(builder.build());
    started.start();
    return started;
  }

  /** Builds a channel to {@code target}, configured further by {@code configure}. */
  protected final ManagedChannel newChannel(
      Server target, Consumer<ManagedChannelBuilder<?>> configure) {
    ManagedChannelBuilder<?> builder = newChannelBuilder(target);
    configure.accept(builder);
    return cleanup.register(builder.build());
  }

  /** A started call, with its recording listener. */
  protected record TestCall<ReqT, RespT>(
      ClientCall<ReqT, RespT> call, RecordingClientCallListener<RespT> listener) {
    /** Sends {@code message}. */
    public void send(ReqT message) {
      call.sendMessage(message);
    }

    /** Asks for one response and waits for it. */
    public RespT receive() {
      call.request(1);
      return listener.awaitMessage();
    }

    /** Waits for the call to end and returns its status. */
    public Status awaitStatus() {
      return listener.awaitStatus();
    }
  }

  /** Starts a call with {@code headers}, requesting nothing yet. */
  protected final <ReqT, RespT> TestCall<ReqT, RespT> startCall(
      Channel on, MethodDescriptor<ReqT, RespT> method, CallOptions options, Metadata headers) {
    ClientCall<ReqT, RespT> call = on.newCall(method, options);
    RecordingClientCallListener<RespT> listener = new RecordingClientCallListener<>();
    callListeners.add(listener);
    call.start(listener, headers);
    return new TestCall<>(call, listener);
  }

  /** Sends one request, half-closes, and asks for responses; await the listener for the rest. */
  protected final <ReqT, RespT> RecordingClientCallListener<RespT> unary(
      Channel on,
      MethodDescriptor<ReqT, RespT> method,
      CallOptions options,
      Metadata headers,
      ReqT request) {
    TestCall<ReqT, RespT> call = startCall(on, method, options, headers);
    call.call().request(2);
    call.send(request);
    call.call().halfClose();
    return call.listener();
  }

  /** An echo on {@link #channel} that must succeed. */
  protected final String echo(String request) {
    return echo(channel, request);
  }

  /** An echo on {@code on} that must succeed. */
  protected final String echo(Channel on, String request) {
    RecordingClientCallListener<String> listener =
        unary(on, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), request);
    Closed closed = listener.awaitClose();
    assertThat(closed.status().isOk()).as("echo status %s", closed.status()).isTrue();
    return listener.awaitMessage();
  }

  /** A bidi echo call, proven established by one round trip. */
  private TestCall<String, String> establishedBidiCall() {
    TestCall<String, String> call =
        startCall(channel, EchoService.BIDI_STREAMING, CallOptions.DEFAULT, new Metadata());
    call.send("first");
    assertThat(call.receive()).isEqualTo("first");
    return call;
  }

  /** Checks a bidi call established earlier still works, then ends it normally. */
  private static void finishBidiCall(TestCall<String, String> call) {
    call.send("still working");
    assertThat(call.receive()).isEqualTo("still working");
    call.call().halfClose();
    assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
  }

  private static String asciiValue(int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append((char) ('a' + i % 26));
    }
    return sb.toString();
  }

  private static byte[] allByteValues() {
    byte[] bytes = new byte[256];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    return bytes;
  }

  // ---------------------------------------------------------------- the four shapes

  @Test
  public void unaryCall() {
    assertThat(echo("hello")).isEqualTo("hello");
    assertThat(echo("")).isEmpty();
    assertThat(echo("caf\u00e9 \u2713")).isEqualTo("caf\u00e9 \u2713");
  }

  @Test
  public void serverStreamingCall() {
    TestCall<String, String> call =
        startCall(channel, EchoService.SERVER_STREAMING, CallOptions.DEFAULT, new Metadata());
    call.call().request(5);
    call.send("3");
    call.call().halfClose();
    assertThat(call.listener().awaitMessage()).isEqualTo("0");
    assertThat(call.listener().awaitMessage()).isEqualTo("1");
    assertThat(call.listener().awaitMessage()).isEqualTo("2");
    assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(call.listener().messagesReceived()).isEqualTo(3);
  }

  @Test
  public void serverStreamingSenderWaitsForRequests() {
    TestCall<String, String> call =
        startCall(channel, EchoService.SERVER_STREAMING, CallOptions.DEFAULT, new Metadata());
    call.send("3");
    call.call().halfClose();
    assertThat(call.receive()).isEqualTo("0");
    assertThat(call.receive()).isEqualTo("1");
    assertThat(call.listener().isClosed())
        .as("closed before the last response was requested")
        .isFalse();
    assertThat(call.receive()).isEqualTo("2");
    assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  public void serverStreamingCallDeliversEveryResponse() {
    TestCall<String, String> call =
        startCall(channel, EchoService.SERVER_STREAMING, CallOptions.DEFAULT, new Metadata());
    call.call().request(100);
    call.send("100");
    call.call().halfClose();
    for (int i = 0; i < 100; i++) {
      assertThat(call.listener().awaitMessage()).isEqualTo(Integer.toString(i));
    }
    assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  public void clientStreamingCall() {
    TestCall<String, String> call =
        startCall(channel, EchoService.CLIENT_STREAMING, CallOptions.DEFAULT, new Metadata());
    call.call().request(1);
    call.send("a");
    call.send("bc");
    call.send("");
    call.send("d");
    call.call().halfClose();
    assertThat(call.listener().awaitMessage()).isEqualTo("abcd");
    assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  public void bidiStreamingCall() {
    TestCall<String, String> call =
        startCall(channel, EchoService.BIDI_STREAMING, CallOptions.DEFAULT, new Metadata());
    for (int i = 0; i < 10; i++) {
      call.send("ping " + i);
      assertThat(call.receive()).isEqualTo("ping " + i);
    }
    call.call().halfClose();
    assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  public void callWithInvalidRequestFailsWithTheServersStatus() {
    RecordingClientCallListener<String> listener =
        unary(channel, EchoService.SERVER_STREAMING, CallOptions.DEFAULT, new Metadata(), "many");
    Status status = listener.awaitStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("'many'");
    assertThat(listener.headersReceived()).isFalse();
  }

  @Test
  public void compressedCallRoundTrips() {
    String request = asciiValue(64 * 1024);
    RecordingClientCallListener<String> listener =
        unary(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withCompression("gzip"),
            new Metadata(),
            request);
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(listener.awaitMessage()).isEqualTo(request);
  }

  // ---------------------------------------------------------------- metadata

  @Test
  public void metadataTravelsBothWays() {
    Metadata headers = new Metadata();
    String largeInitial = asciiValue(3 * 1024);
    String largeTrailing = asciiValue(2 * 1024) + "-trailing";
    headers.put(ECHO_INITIAL_ASCII, largeInitial);
    headers.put(ECHO_INITIAL_BINARY, allByteValues());
    headers.put(ECHO_TRAILING_ASCII, largeTrailing);
    headers.put(ECHO_TRAILING_BINARY, new byte[] {0, 1, (byte) 0xFF});
    headers.put(PLAIN_KEY, "not echoed");

    RecordingClientCallListener<String> listener =
        unary(channel, EchoService.UNARY, CallOptions.DEFAULT, headers, "with metadata");
    Metadata responseHeaders = listener.awaitHeaders();
    assertThat(responseHeaders.get(ECHO_INITIAL_ASCII)).isEqualTo(largeInitial);
    assertThat(responseHeaders.get(ECHO_INITIAL_BINARY)).isEqualTo(allByteValues());
    assertThat(responseHeaders.get(ECHO_TRAILING_ASCII)).isNull();
    assertThat(responseHeaders.get(PLAIN_KEY)).isNull();

    Closed closed = listener.awaitClose();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(closed.trailers().get(ECHO_TRAILING_ASCII)).isEqualTo(largeTrailing);
    assertThat(closed.trailers().get(ECHO_TRAILING_BINARY)).isEqualTo(new byte[] {0, 1, -1});
    assertThat(closed.trailers().get(ECHO_INITIAL_ASCII)).isNull();
    assertThat(listener.awaitMessage()).isEqualTo("with metadata");
  }

  @Test
  public void requestMetadataOverServerLimitFailsResourceExhausted() {
    Metadata headers = new Metadata();
    headers.put(PLAIN_KEY, asciiValue(GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE + 1024));
    RecordingClientCallListener<String> listener =
        unary(channel, EchoService.UNARY, CallOptions.DEFAULT, headers, "too much metadata");
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(echo("next call")).isEqualTo("next call");
  }

  @Test
  public void responseMetadataOverClientLimitFailsResourceExhausted() {
    ManagedChannel limited = newChannel(server, builder -> builder.maxInboundMetadataSize(1024));
    Metadata headers = new Metadata();
    headers.put(ECHO_INITIAL_ASCII, asciiValue(2 * 1024));
    RecordingClientCallListener<String> listener =
        unary(limited, EchoService.UNARY, CallOptions.DEFAULT, headers, "echo big headers");
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

    Metadata trailing = new Metadata();
    trailing.put(ECHO_TRAILING_ASCII, asciiValue(2 * 1024));
    RecordingClientCallListener<String> second =
        unary(limited, EchoService.UNARY, CallOptions.DEFAULT, trailing, "echo big trailers");
    assertThat(second.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

    assertThat(echo(limited, "small is fine")).isEqualTo("small is fine");
  }

  // ---------------------------------------------------------------- message sizes

  @Test
  public void largeMessagesWithinTheDefaultLimit() {
    String request = asciiValue(3 * 1024 * 1024);
    assertThat(echo(request)).isEqualTo(request);
  }

  @Test
  public void oversizedRequestFailsResourceExhaustedWhileOtherCallsGoOn() {
    TestCall<String, String> concurrent = establishedBidiCall();
    String tooBig = asciiValue(GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE + 1);
    RecordingClientCallListener<String> listener =
        unary(channel, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), tooBig);
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    finishBidiCall(concurrent);
  }

  @Test
  public void serverMessageLimitFromBuilderApplies() throws IOException {
    Server limitedServer = startServer(builder -> builder.maxInboundMessageSize(1000));
    ManagedChannel toLimited = newChannel(limitedServer, builder -> {});
    RecordingClientCallListener<String> tooBig =
        unary(toLimited, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), asciiValue(1001));
    assertThat(tooBig.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(echo(toLimited, asciiValue(1000))).hasSize(1000);
  }

  @Test
  public void oversizedResponseFailsResourceExhaustedWhileOtherCallsGoOn() {
    ManagedChannel limited = newChannel(server, builder -> builder.maxInboundMessageSize(1000));
    TestCall<String, String> concurrent =
        startCall(limited, EchoService.BIDI_STREAMING, CallOptions.DEFAULT, new Metadata());
    concurrent.send("first");
    assertThat(concurrent.receive()).isEqualTo("first");

    // The request fits the server's limit; the echoed response does not fit the channel's.
    RecordingClientCallListener<String> listener =
        unary(limited, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), asciiValue(1001));
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(listener.messagesReceived()).isZero();
    finishBidiCall(concurrent);
  }

  @Test
  public void callOptionsMessageLimitsApply() {
    RecordingClientCallListener<String> inbound =
        unary(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withMaxInboundMessageSize(100),
            new Metadata(),
            asciiValue(101));
    assertThat(inbound.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

    RecordingClientCallListener<String> outbound =
        unary(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withMaxOutboundMessageSize(100),
            new Metadata(),
            asciiValue(101));
    assertThat(outbound.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(echo("next call")).isEqualTo("next call");
  }

  // ---------------------------------------------------------------- deadlines and cancellation

  @Test
  public void deadlineExceededReachesClientAndServer() {
    // Connect first: the deadline is for the call, not for the connection and TLS handshake, which
    // on a loaded machine can take longer than it and fail the call before it reaches the server.
    assertThat(echo("connected")).isEqualTo("connected");
    RecordingClientCallListener<String> listener =
        unary(
            channel,
            ProbeService.HANG,
            CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS),
            new Metadata(),
            "never answered");
    ProbeService.HangingCall hanging = probe.awaitHangingCall();
    assertThat(hanging.contextDeadline()).as("server-side Context deadline").isNotNull();
    assertThat(hanging.contextDeadline().timeRemaining(TimeUnit.MILLISECONDS)).isLessThan(300);
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    hanging.awaitOnCancel();
    hanging.awaitContextCancelled();
  }

  @Test
  public void expiredDeadlineFailsAtOnce() {
    RecordingClientCallListener<String> listener =
        unary(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(-1, TimeUnit.SECONDS),
            new Metadata(),
            "too late");
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
  }

  @Test
  public void clientCancellationReachesServer() {
    TestCall<String, String> call =
        startCall(channel, ProbeService.HANG, CallOptions.DEFAULT, new Metadata());
    call.send("wait for me");
    ProbeService.HangingCall hanging = probe.awaitHangingCall();
    call.call().cancel("cancelled by the test", null);
    Status status = call.awaitStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(status.getDescription()).contains("cancelled by the test");
    hanging.awaitOnCancel();
    hanging.awaitContextCancelled();
    assertThat(hanging.call().isCancelled()).isTrue();
  }

  // ---------------------------------------------------------------- shutdown

  @Test
  public void serverShutdownLetsCallsInFlightFinishAndRefusesNewOnes() throws Exception {
    TestCall<String, String> inFlight = establishedBidiCall();
    server.shutdown();
    assertThat(server.isShutdown()).isTrue();
    RecordingClientCallListener<String> refused =
        unary(channel, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), "refused");
    assertThat(refused.awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.isTerminated()).as("terminated with a call in flight").isFalse();
    finishBidiCall(inFlight);
    assertThat(server.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
  }

  @Test
  public void serverShutdownNowFailsCallsInFlightUnavailable() throws Exception {
    RecordingClientCallListener<String> listener =
        unary(channel, ProbeService.HANG, CallOptions.DEFAULT, new Metadata(), "in flight");
    ProbeService.HangingCall hanging = probe.awaitHangingCall();
    server.shutdownNow();
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    hanging.awaitOnCancel();
    hanging.awaitContextCancelled();
    assertThat(server.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
  }

  @Test
  public void channelShutdownFinishesCallsInFlightAndRefusesNewOnes() throws Exception {
    TestCall<String, String> inFlight = establishedBidiCall();
    channel.shutdown();
    assertThat(channel.isShutdown()).isTrue();
    RecordingClientCallListener<String> refused =
        unary(channel, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), "refused");
    assertThat(refused.awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(channel.isTerminated()).as("terminated with a call in flight").isFalse();
    finishBidiCall(inFlight);
    assertThat(channel.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
  }

  @Test
  public void channelShutdownNowCancelsCallsInFlight() throws Exception {
    RecordingClientCallListener<String> listener =
        unary(channel, ProbeService.HANG, CallOptions.DEFAULT, new Metadata(), "in flight");
    ProbeService.HangingCall hanging = probe.awaitHangingCall();
    channel.shutdownNow();
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    hanging.awaitOnCancel();
    assertThat(channel.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
  }

  // ---------------------------------------------------------------- errors

  @Test
  public void unknownMethodFailsUnimplemented() {
    MethodDescriptor<String, String> unknownMethod =
        EchoService.UNARY.toBuilder().setFullMethodName("tern.testing.Echo/Nope").build();
    Status status =
        unary(channel, unknownMethod, CallOptions.DEFAULT, new Metadata(), "?").awaitStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(status.getDescription()).contains("Method not found: tern.testing.Echo/Nope");

    MethodDescriptor<String, String> unknownService =
        EchoService.UNARY.toBuilder().setFullMethodName("tern.testing.Nope/Unary").build();
    Status second =
        unary(channel, unknownService, CallOptions.DEFAULT, new Metadata(), "?").awaitStatus();
    assertThat(second.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(second.getDescription()).contains("Method not found: tern.testing.Nope/Unary");
  }

  @Test
  public void throwingHandlerFailsUnknownAndTheServerGoesOn() throws InterruptedException {
    // The server logs the handler's exception as a WARNING with its stack: expected here.
    try (LogCapture log =
        new LogCapture("dev.tern.internal.server.ServerCallStreamListener", null)) {
      Status status =
          unary(channel, ProbeService.THROW, CallOptions.DEFAULT, new Metadata(), "boom")
              .awaitStatus();
      assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
      // Nothing of the exception (type, message) reaches the client; the server log has it.
      assertThat(status.getDescription()).isEqualTo("Application error processing RPC");
      assertThat(echo("after the throw")).isEqualTo("after the throw");
      LogRecord logged =
          log.awaitRecord(
              r -> r.getMessage().contains("tern.testing.Probe/Throw"), Duration.ofSeconds(10));
      assertThat(logged.getLevel()).isEqualTo(Level.WARNING);
      assertThat(logged.getThrown()).hasMessage("handler failed on purpose");
    }
  }

  @Test
  public void callWhoseExecutorRefusesItsCallbacksEndsWithoutThemAndTheChannelGoesOn()
      throws InterruptedException {
    AtomicBoolean refuse = new AtomicBoolean();
    Executor refusing =
        task -> {
          if (refuse.get()) {
            throw new RejectedExecutionException("refused by the test");
          }
          task.run();
        };
    TestCall<String, String> call =
        startCall(
            channel, ProbeService.SINK, CallOptions.DEFAULT.withExecutor(refusing), new Metadata());
    call.call().request(1);
    ProbeService.SinkCall sink = probe.awaitSinkCall();
    refuse.set(true);
    // The client logs the refusal as a WARNING with its exception: expected here.
    try (LogCapture log = new LogCapture("dev.tern.internal.client.ClientCallEvents", null)) {
      // Headers, a message and the close, whose callbacks the client's executor refuses.
      sink.call().sendHeaders(new Metadata());
      sink.call().sendMessage("refused");
      sink.call().close(Status.OK, new Metadata());

      LogRecord logged =
          log.awaitRecord(
              r -> r.getMessage().contains("tern.testing.Probe/Sink"), Duration.ofSeconds(10));
      assertThat(logged.getLevel()).isEqualTo(Level.WARNING);
      assertThat(logged.getThrown()).hasMessage("refused by the test");
    }
    // The listener heard nothing; the message's buffer was released (the leak check), the call
    // counts as ended (the channel terminates after the test), and the channel goes on.
    assertThat(call.listener().headersReceived()).isFalse();
    assertThat(call.listener().messagesReceived()).isZero();
    assertThat(call.listener().isClosed()).isFalse();
    assertThat(echo("after the refusal")).isEqualTo("after the refusal");
  }

  @Test
  public void throwingClientInterceptorFailsTheCallWithoutHanging() {
    ClientInterceptor throwing =
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
            throw new IllegalStateException("interceptor failed on purpose");
          }
        };
    ManagedChannel intercepted = newChannel(server, builder -> builder.intercept(throwing));
    Status status =
        unary(intercepted, EchoService.UNARY, CallOptions.DEFAULT, new Metadata(), "x")
            .awaitStatus();
    assertThat(status.isOk()).isFalse();
    assertThat(status.getCause()).hasMessage("interceptor failed on purpose");
    assertThat(echo("other channels work")).isEqualTo("other channels work");
  }

  // ---------------------------------------------------------------- transport attributes

  @Test
  public void transportFilterSeesAddressesAndCallsSeeWhatItReturned() throws Exception {
    assertThat(
            unary(channel, ProbeService.ATTRIBUTES, CallOptions.DEFAULT, new Metadata(), "?")
                .awaitStatus()
                .isOk())
        .isTrue();
    Attributes seenByFilter = filter.awaitReady();
    assertThat(seenByFilter.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isNotNull();
    assertThat(seenByFilter.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR)).isNotNull();

    Attributes seenByCall = probe.awaitAttributes();
    assertThat(seenByCall.get(RecordingTransportFilter.FILTER_KEY))
        .isEqualTo(RecordingTransportFilter.FILTER_VALUE);
    assertThat(seenByCall.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR))
        .isEqualTo(seenByFilter.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
    assertThat(seenByCall.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR))
        .isEqualTo(seenByFilter.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR));

    channel.shutdown();
    assertThat(channel.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
    Attributes terminated = filter.awaitTerminated();
    assertThat(terminated.get(RecordingTransportFilter.FILTER_KEY))
        .isEqualTo(RecordingTransportFilter.FILTER_VALUE);
  }

  @Test
  public void serverReportsItsServicesAndAddresses() {
    assertThat(server.getListenSockets()).isNotEmpty();
    assertThat(server.getServices())
        .extracting(service -> service.getServiceDescriptor().getName())
        .contains(EchoService.SERVICE_NAME, ProbeService.SERVICE_NAME);
  }

  // ---------------------------------------------------------------- reserved headers

  @Test
  public void malformedGrpcTimeoutFailsInternalAndTheServerGoesOn() {
    ManagedClientTransport transport = newClientTransport(server);
    assumeTrue(transport != null, "no raw client transport (newClientTransport hook)");
    RecordingTransportListener transportListener = new RecordingTransportListener();
    Runnable afterStart = transport.start(transportListener);
    if (afterStart != null) {
      afterStart.run();
    }
    try {
      transportListener.awaitReady();
      Metadata headers = new Metadata();
      headers.put(GrpcHeaders.TIMEOUT, "abc");
      ClientStream stream = transport.newStream(EchoService.UNARY, headers, CallOptions.DEFAULT);
      stream.setMaxInboundMessageSize(GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE);
      RecordingClientStreamListener streamListener = new RecordingClientStreamListener();
      stream.start(streamListener);
      stream.writeMessage(TestMarshallers.utf8().stream("bad timeout"));
      stream.halfClose();
      Status status = streamListener.awaitStatus();
      assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(status.getDescription()).contains("grpc-timeout");
      assertThat(streamListener.violations()).isEmpty();
      assertThat(echo("still serving")).isEqualTo("still serving");
    } finally {
      transport.shutdownNow(Status.UNAVAILABLE.withDescription("test finished"));
      transportListener.awaitTerminated();
    }
  }

  // ---------------------------------------------------------------- flow control

  @Test
  public void slowReaderHoldsBackAServerStreamingSender() {
    int total = 1024;
    // 8 MiB: far more than any transport should buffer for one call, far less than the 16 sent.
    int maxAhead = 512;
    TestCall<String, String> call =
        startCall(channel, ProbeService.SOURCE, CallOptions.DEFAULT, new Metadata());
    call.send(Integer.toString(total));
    call.call().halfClose();
    probe.awaitSourceStopped();
    assertThat(probe.sourceFinished())
        .as("server sent all %s messages before the client read any", total)
        .isFalse();
    for (int i = 0; i < total; i++) {
      assertThat(call.receive()).hasSize(ProbeService.SOURCE_MESSAGE_SIZE);
      probe.clientReceivedOne();
    }
    assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(probe.sourceSent()).isEqualTo(total);
    assertThat(probe.maxAheadOfClient())
        .as("messages the server got ahead of a client reading one at a time")
        .isLessThanOrEqualTo(maxAhead);
  }

  @Test
  public void slowServerHoldsBackAClientStreamingSender() {
    int maxWrites = 1024;
    String payload = asciiValue(16 * 1024);
    TestCall<String, String> call =
        startCall(channel, ProbeService.SINK, CallOptions.DEFAULT, new Metadata());
    ProbeService.SinkCall sink = probe.awaitSinkCall();
    int written = 0;
    while (call.call().isReady() && written < maxWrites) {
      call.send(payload);
      written++;
    }
    assertThat(call.call().isReady())
        .as(
            "client still ready after %s messages of 16 KiB to a server that requested none",
            written)
        .isFalse();

    // The server reads what was sent, one at a time; the client becomes ready again.
    for (int i = 0; i < written; i++) {
      sink.call().request(1);
      assertThat(sink.awaitMessage()).isEqualTo(payload);
    }
    sink.call().request(1);
    call.listener().awaitReady(call.call());
    call.send("last");
    assertThat(sink.awaitMessage()).isEqualTo("last");
    call.call().halfClose();
    sink.awaitHalfClosed();
    sink.call().sendHeaders(new Metadata());
    sink.call().sendMessage("received " + (written + 1));
    sink.call().close(Status.OK, new Metadata());
    call.call().request(1);
    assertThat(call.listener().awaitMessage()).isEqualTo("received " + (written + 1));
    assertThat(call.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    sink.awaitDone();
  }
}
