package dev.tern.inprocess;

import static dev.tern.inprocess.RecordingListeners.METHOD;
import static dev.tern.inprocess.RecordingListeners.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.inprocess.RecordingListeners.ClientCall;
import dev.tern.inprocess.RecordingListeners.ClientTransportEvents;
import dev.tern.inprocess.RecordingListeners.ServerCall;
import dev.tern.inprocess.RecordingListeners.ServerConnection;
import dev.tern.inprocess.RecordingListeners.ServerEvents;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.ClientTransport.PingCallback;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Drives the in-process transport through the SPI, with recording listeners on both sides. */
class InProcessTransportTest {
  private static final Metadata.Key<String> GREETING =
      Metadata.Key.of("greeting", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> BLOB =
      Metadata.Key.of("blob-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private final String name = "transport-test-" + UUID.randomUUID();
  private final ServerEvents serverEvents = new ServerEvents();
  private final ClientTransportEvents clientEvents = new ClientTransportEvents();
  private InProcessServer server;
  private InProcessTransport transport;

  @BeforeEach
  void startServer() throws IOException {
    server = new InProcessServer(name);
    server.start(serverEvents);
  }

  @AfterEach
  void tearDown() {
    if (transport != null) {
      transport.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
    }
    server.shutdown();
  }

  private InProcessTransport connect() {
    return connect(GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE);
  }

  private InProcessTransport connect(int maxInboundMetadataSize) {
    transport =
        new InProcessTransport(
            new InProcessSocketAddress(name), "localhost", "test-agent", maxInboundMetadataSize);
    Runnable connect = transport.start(clientEvents);
    connect.run();
    return transport;
  }

  private ClientStream startCall(ClientCall listener) {
    return startCall(listener, new Metadata());
  }

  private ClientStream startCall(ClientCall listener, Metadata headers) {
    ClientStream stream = transport.newStream(METHOD, headers, CallOptions.DEFAULT);
    stream.start(listener);
    return stream;
  }

  private ServerConnection connection() {
    return serverEvents.onlyConnection();
  }

  // ---- connecting ----

  @Test
  void connectingToAMissingNameFailsUnavailable() {
    transport =
        new InProcessTransport(
            new InProcessSocketAddress("no-such-server"), "localhost", null, 100);
    transport.start(clientEvents).run();

    assertThat(clientEvents.events).containsExactly("shutdown:UNAVAILABLE", "terminated");
    assertThat(clientEvents.shutdownStatus.getDescription())
        .isEqualTo("Could not find server: no-such-server");
    ClientCall call = new ClientCall();
    startCall(call);
    assertThat(call.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(call.progress).isEqualTo(RpcProgress.DROPPED);
  }

  @Test
  void aConnectionRejectedInTransportReadyNeverReportsReadyToTheClient() {
    serverEvents.rejectConnections = true;

    connect();

    assertThat(clientEvents.events).containsExactly("shutdown:UNAVAILABLE", "terminated");
    assertThat(connection().events).containsExactly("ready", "terminated");
  }

  @Test
  void aStreamTheServerRuntimeDoesNotAcceptFailsInternal() {
    serverEvents.installStreamListeners = false;
    connect();
    ClientCall client = new ClientCall();

    startCall(client);

    assertThat(client.status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(clientEvents.events).containsExactly("ready", "inUse:true", "inUse:false");
  }

  @Test
  void newStreamChecksItsArguments() {
    connect();

    assertThatThrownBy(() -> transport.newStream(null, new Metadata(), CallOptions.DEFAULT))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("method");
    assertThatThrownBy(() -> transport.newStream(METHOD, null, CallOptions.DEFAULT))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("headers");
    ClientStream stream = startCall(new ClientCall());
    assertThatThrownBy(() -> stream.start(new ClientCall()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("already started");
    assertThatThrownBy(() -> stream.writeMessage(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("message");
  }

  @Test
  void startTwiceIsRejected() {
    connect();

    assertThatThrownBy(() -> transport.start(clientEvents))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already started");
  }

  @Test
  void attributesCarryTheAddressAndPrivacyOnBothSides() {
    Attributes.Key<String> filterKey = Attributes.Key.create("filter");
    serverEvents.extraAttributes = Attributes.newBuilder().set(filterKey, "added").build();
    connect();
    ClientCall call = new ClientCall();
    ClientStream stream = startCall(call);

    InProcessSocketAddress address = new InProcessSocketAddress(name);
    for (Attributes attrs : List.of(transport.getAttributes(), stream.getAttributes())) {
      assertThat(attrs.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isEqualTo(address);
      assertThat(attrs.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR)).isEqualTo(address);
      assertThat(attrs.get(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL))
          .isEqualTo(SecurityLevel.PRIVACY_AND_INTEGRITY);
      assertThat(attrs.get(Grpc.TRANSPORT_ATTR_SSL_SESSION)).isNull();
    }
    assertThat(connection().readyAttributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR))
        .isEqualTo(address);
    Attributes serverStreamAttrs = connection().lastCall().stream.getAttributes();
    assertThat(serverStreamAttrs.get(filterKey)).isEqualTo("added");
    assertThat(serverStreamAttrs.get(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL))
        .isEqualTo(SecurityLevel.PRIVACY_AND_INTEGRITY);
  }

  // ---- calls ----

  @Test
  void requestHeadersReachTheServerAsACopyWithBinaryValuesAndUserAgent() {
    connect();
    Metadata headers = new Metadata();
    headers.put(GREETING, "hi");
    headers.put(BLOB, new byte[] {0, (byte) 0xff, 42});
    ClientStream stream = startCall(new ClientCall(), headers);

    headers.put(GREETING, "changed after start");

    Metadata seen = connection().lastCall().headers;
    assertThat(seen.getAll(GREETING)).containsExactly("hi");
    assertThat(seen.get(BLOB)).containsExactly(0, 0xff, 42);
    assertThat(seen.get(GrpcHeaders.USER_AGENT)).isEqualTo("test-agent");
    assertThat(stream).isNotNull();
  }

  @Test
  void callOptionsAuthorityOverridesTheTransportAuthority() {
    connect();
    ClientStream stream =
        transport.newStream(
            METHOD, new Metadata(), CallOptions.DEFAULT.withAuthority("other.example"));
    stream.start(new ClientCall());

    assertThat(connection().lastCall().stream.getAuthority()).isEqualTo("other.example");
  }

  @Test
  void responseHeadersAndTrailersCarryBinaryValues() {
    connect();
    ClientCall client = new ClientCall();
    startCall(client);
    ServerCall server = connection().lastCall();
    Metadata headers = new Metadata();
    headers.put(BLOB, new byte[] {1, 2, 3});
    Metadata trailers = new Metadata();
    trailers.put(BLOB, new byte[] {4, 5});

    server.stream.writeHeaders(headers, true);
    server.stream.close(Status.NOT_FOUND.withDescription("nope"), trailers);

    assertThat(client.headers.get(BLOB)).containsExactly(1, 2, 3);
    assertThat(client.trailers.get(BLOB)).containsExactly(4, 5);
    assertThat(client.status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(client.status.getDescription()).isEqualTo("nope");
    assertThat(server.closedStatus.isOk()).isTrue();
  }

  @Test
  void aMessageWithoutHeadersIsPrecededByEmptyHeaders() {
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = startCall(client);
    stream.request(1);

    connection().lastCall().stream.writeMessage(message("first"));

    assertThat(client.events).containsExactly("headers", "message:first");
    assertThat(client.headers.headerCount()).isZero();
  }

  @Test
  void senderBecomesReadyWhenTheReceiverRequests() {
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = startCall(client);
    ServerCall server = connection().lastCall();
    assertThat(stream.isReady()).isFalse();
    assertThat(client.onReadyCount).hasValue(0);

    server.stream.request(1);
    assertThat(stream.isReady()).isTrue();
    assertThat(client.onReadyCount).hasValue(1);

    stream.writeMessage(message("one"));
    assertThat(stream.isReady()).isFalse();
    stream.writeMessage(message("queued"));
    server.stream.request(1);
    assertThat(server.messages).containsExactly("one", "queued");
    assertThat(stream.isReady()).isFalse();
    assertThat(client.onReadyCount).hasValue(1);

    server.stream.request(1);
    assertThat(stream.isReady()).isTrue();
    assertThat(client.onReadyCount).hasValue(2);
  }

  @Test
  void serverBecomesReadyWhenTheClientRequests() {
    connect();
    ClientStream stream = startCall(new ClientCall());
    ServerCall server = connection().lastCall();
    assertThat(server.stream.isReady()).isFalse();

    stream.request(2);

    assertThat(server.stream.isReady()).isTrue();
    assertThat(server.onReadyCount).hasValue(1);
  }

  @Test
  void requestMustBePositive() {
    connect();
    ClientStream stream = startCall(new ClientCall());

    assertThatThrownBy(() -> stream.request(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numMessages");
    assertThatThrownBy(() -> connection().lastCall().stream.request(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numMessages");
  }

  @Test
  void halfCloseReachesTheServerOnlyAfterItsQueuedMessages() {
    connect();
    ClientStream stream = startCall(new ClientCall());
    ServerCall server = connection().lastCall();
    stream.writeMessage(message("1"));
    stream.writeMessage(message("2"));
    stream.halfClose();
    assertThat(server.events).isEmpty();

    server.stream.request(1);
    assertThat(server.events).containsExactly("message:1");
    server.stream.request(1);
    assertThat(server.events).containsExactly("message:1", "message:2", "halfClosed");
  }

  @Test
  void writesAfterHalfCloseAreDropped() {
    connect();
    ClientStream stream = startCall(new ClientCall());
    ServerCall server = connection().lastCall();
    server.stream.request(5);
    stream.halfClose();

    TrackingStream late = new TrackingStream("late");
    stream.writeMessage(late);

    assertThat(server.events).containsExactly("halfClosed");
    assertThat(late.closed).isTrue();
  }

  @Test
  void statusCauseDoesNotCrossToTheClient() {
    connect();
    ClientCall closedCall = new ClientCall();
    startCall(closedCall);
    connection()
        .lastCall()
        .stream
        .close(
            Status.INTERNAL.withDescription("boom").withCause(new IllegalStateException("secret")),
            new Metadata());
    ClientCall cancelledCall = new ClientCall();
    startCall(cancelledCall);
    connection()
        .lastCall()
        .stream
        .cancel(Status.ABORTED.withDescription("gone").withCause(new RuntimeException("secret")));

    assertThat(closedCall.status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(closedCall.status.getDescription()).isEqualTo("boom");
    assertThat(closedCall.status.getCause()).isNull();
    assertThat(cancelledCall.status.getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(cancelledCall.status.getDescription()).isEqualTo("gone");
    assertThat(cancelledCall.status.getCause()).isNull();
  }

  // ---- cancellation ----

  @Test
  void clientCancelClosesTheClientAtOnceAndReachesTheServer() {
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = startCall(client);
    ServerCall server = connection().lastCall();
    server.stream.writeHeaders(new Metadata(), true);
    TrackingStream unread = new TrackingStream("unread");
    server.stream.writeMessage(unread);

    Status reason = Status.CANCELLED.withDescription("user gave up");
    stream.cancel(reason);
    stream.cancel(Status.DEADLINE_EXCEEDED); // idempotent

    assertThat(client.events).containsExactly("headers", "closed:CANCELLED");
    assertThat(client.status).isSameAs(reason);
    assertThat(server.closedStatus.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(server.closedStatus.getDescription()).isEqualTo("client cancelled");
    assertThat(unread.closed).isTrue();
    assertThat(server.stream.isReady()).isFalse();
  }

  @Test
  void serverCancelReachesTheClientWithItsStatus() {
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = startCall(client);
    ServerCall server = connection().lastCall();
    stream.writeMessage(message("never read"));

    server.stream.cancel(Status.DEADLINE_EXCEEDED.withDescription("too slow"));

    assertThat(client.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(client.status.getDescription()).isEqualTo("too slow");
    assertThat(client.closedCount).hasValue(1);
    assertThat(server.events).containsExactly("closed:DEADLINE_EXCEEDED");
    assertThat(stream.isReady()).isFalse();
  }

  @Test
  void cancelBeforeStartClosesOnStartWithoutReachingTheServer() {
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.cancel(Status.CANCELLED.withDescription("early"));

    stream.start(client);

    assertThat(client.events).containsExactly("closed:CANCELLED");
    assertThat(client.progress).isEqualTo(RpcProgress.DROPPED);
    assertThat(connection().calls).isEmpty();
    assertThat(clientEvents.events).containsExactly("ready");
  }

  // ---- size limits ----

  @Test
  void tooLargeRequestMessageFailsBothSidesAndIsNeverDelivered() {
    serverEvents.onStreamCreated = stream -> stream.setMaxInboundMessageSize(4);
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = startCall(client);
    ServerCall server = connection().lastCall();
    server.stream.request(5);

    stream.writeMessage(message("ok"));
    stream.writeMessage(message("far too large"));

    assertThat(server.messages).containsExactly("ok");
    assertThat(server.closedStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(client.status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(client.status.getDescription())
        .isEqualTo("Received message larger than max (13 vs. 4)");
  }

  @Test
  void tooLargeResponseMessageFailsBothSidesAndOtherStreamsCarryOn() {
    connect();
    ClientCall small = new ClientCall();
    ClientStream smallStream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    smallStream.setMaxInboundMessageSize(3);
    smallStream.start(small);
    ServerCall smallServer = connection().lastCall();
    ClientCall other = new ClientCall();
    ClientStream otherStream = startCall(other);
    ServerCall otherServer = connection().lastCall();
    smallStream.request(1);
    otherStream.request(1);

    TrackingStream big = new TrackingStream("toolarge");
    smallServer.stream.writeMessage(big);
    otherServer.stream.writeMessage(message("toolarge"));

    assertThat(small.messages).isEmpty();
    assertThat(big.closed).isTrue();
    assertThat(small.status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(small.status.getDescription())
        .isEqualTo("Received message larger than max (8 vs. 3)");
    assertThat(smallServer.closedStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(other.messages).containsExactly("toolarge");
    assertThat(other.status).isNull();
  }

  @Test
  void tooLargeQueuedMessageFailsWhenItIsRequested() {
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.setMaxInboundMessageSize(5);
    stream.start(client);
    ServerCall server = connection().lastCall();
    server.stream.writeMessage(message("fine"));
    server.stream.writeMessage(message("not fine"));

    stream.request(2);

    assertThat(client.messages).containsExactly("fine");
    assertThat(client.status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void messageOfUnknownLengthIsMeasuredByReadingIt() {
    serverEvents.onStreamCreated = stream -> stream.setMaxInboundMessageSize(4);
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = startCall(client);
    ServerCall server = connection().lastCall();
    server.stream.request(2);

    stream.writeMessage(new UnknownLengthStream("four"));
    stream.writeMessage(new UnknownLengthStream("fives"));

    assertThat(server.messages).containsExactly("four");
    assertThat(client.status.getDescription())
        .isEqualTo("Received message larger than max (5 vs. 4)");
  }

  @Test
  void tooLargeOutboundMessageFailsTheCall() {
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.setMaxOutboundMessageSize(2);
    stream.start(client);
    ServerCall server = connection().lastCall();
    server.stream.request(1);

    stream.writeMessage(message("abc"));

    assertThat(server.messages).isEmpty();
    assertThat(client.status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(client.status.getDescription()).isEqualTo("Sent message larger than max (3 vs. 2)");
    assertThat(server.closedStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void tooLargeRequestMetadataFailsTheCallBeforeTheServerSeesIt() throws IOException {
    server.shutdown();
    server = new InProcessServer(name, null, 1024, 100);
    server.start(serverEvents);
    connect();
    ClientCall client = new ClientCall();
    Metadata headers = new Metadata();
    headers.put(GREETING, "x".repeat(100));

    startCall(client, headers);

    assertThat(client.status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(client.status.getDescription()).startsWith("Request header metadata larger than");
    assertThat(connection().calls).isEmpty();
    assertThat(clientEvents.events).containsExactly("ready");
  }

  @Test
  void tooLargeResponseHeadersFailTheCall() {
    connect(100);
    ClientCall client = new ClientCall();
    startCall(client);
    ServerCall server = connection().lastCall();
    Metadata headers = new Metadata();
    headers.put(BLOB, new byte[60]); // 80 bytes of base64 + 8 + 32 > 100

    server.stream.writeHeaders(headers, true);

    assertThat(client.events).containsExactly("closed:RESOURCE_EXHAUSTED");
    assertThat(client.status.getDescription())
        .isEqualTo("Response header metadata larger than max (120 vs. 100)");
    assertThat(server.closedStatus.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void tooLargeTrailersFailTheClientButTheServersCloseCompleted() {
    connect(100);
    ClientCall client = new ClientCall();
    startCall(client);
    ServerCall server = connection().lastCall();
    Metadata trailers = new Metadata();
    trailers.put(GREETING, "y".repeat(80));

    server.stream.close(Status.OK, trailers);

    assertThat(client.status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(client.status.getDescription()).startsWith("Response trailer metadata larger");
    assertThat(client.trailers.headerCount()).isZero();
    assertThat(server.closedStatus.isOk()).isTrue();
  }

  // ---- transport lifecycle ----

  @Test
  void streamStaysInUseUntilTheClientHasReadTheClose() {
    connect();
    ClientCall client = new ClientCall();
    ClientStream stream = startCall(client);
    ServerCall server = connection().lastCall();
    server.stream.writeMessage(message("pending"));
    server.stream.close(Status.OK, new Metadata());
    assertThat(clientEvents.events).containsExactly("ready", "inUse:true");

    stream.request(1);

    assertThat(client.status.isOk()).isTrue();
    assertThat(clientEvents.events).containsExactly("ready", "inUse:true", "inUse:false");
  }

  @Test
  void shutdownLetsStreamsInFlightFinishThenTerminates() {
    connect();
    ClientCall inFlight = new ClientCall();
    startCall(inFlight);
    ServerCall server = connection().lastCall();

    transport.shutdown(Status.UNAVAILABLE.withDescription("channel shutdown"));
    transport.shutdown(Status.UNAVAILABLE.withDescription("again")); // idempotent
    ClientCall late = new ClientCall();
    startCall(late);

    assertThat(late.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(late.status.getDescription()).isEqualTo("channel shutdown");
    assertThat(late.progress).isEqualTo(RpcProgress.DROPPED);
    assertThat(clientEvents.events).containsExactly("ready", "inUse:true", "shutdown:UNAVAILABLE");
    assertThat(connection().events).containsExactly("ready", "streamCreated");

    server.stream.close(Status.OK, new Metadata());

    assertThat(inFlight.status.isOk()).isTrue();
    assertThat(clientEvents.events)
        .containsExactly(
            "ready", "inUse:true", "shutdown:UNAVAILABLE", "inUse:false", "terminated");
    assertThat(connection().events).containsExactly("ready", "streamCreated", "terminated");
  }

  @Test
  void serverTransportShutdownNowFailsClientsWithTheReason() {
    connect();
    ClientCall client = new ClientCall();
    startCall(client);
    ServerCall server = connection().lastCall();

    connection().transport.shutdownNow(Status.UNAVAILABLE.withDescription("server stopping"));

    assertThat(client.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(client.status.getDescription()).isEqualTo("server stopping");
    assertThat(server.closedStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(clientEvents.events).endsWith("terminated");
  }

  @Test
  void serverScheduledExecutorIsTheServers() {
    connect();

    assertThat(connection().transport.getScheduledExecutorService())
        .isSameAs(server.getScheduledExecutorService());
  }

  // ---- ping ----

  @Test
  void pingAfterShutdownFailsUnavailable() {
    connect();
    transport.shutdown(Status.UNAVAILABLE);
    RecordingPing ping = new RecordingPing();

    transport.ping(ping, Runnable::run);

    assertThat(ping.result).isEqualTo("failure:UNAVAILABLE");
    assertThat(ping.failure.getDescription()).isEqualTo("transport is shut down");
  }

  // ---- helpers ----

  private static final class RecordingPing implements PingCallback {
    volatile String result;
    volatile Status failure;

    @Override
    public void onSuccess(long roundTripTimeNanos) {
      result = "success:" + roundTripTimeNanos;
    }

    @Override
    public void onFailure(Status status) {
      failure = status;
      result = "failure:" + status.getCode();
    }
  }

  /** A message stream that records whether it was closed. */
  static final class TrackingStream extends ByteArrayInputStream {
    final AtomicBoolean closedFlag = new AtomicBoolean();
    volatile boolean closed;

    TrackingStream(String text) {
      super(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws IOException {
      closed = true;
      super.close();
    }
  }

  /** A message stream whose length the transport cannot know without reading it. */
  static final class UnknownLengthStream extends java.io.FilterInputStream {
    UnknownLengthStream(String text) {
      super(message(text));
    }

    @Override
    public int available() {
      return 0;
    }
  }
}
