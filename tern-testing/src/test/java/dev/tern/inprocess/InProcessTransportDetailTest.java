package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.testing.RecordingClientStreamListener;
import dev.tern.testing.RecordingClientStreamListener.Closed;
import dev.tern.testing.RecordingPingCallback;
import dev.tern.testing.RecordingServerListener;
import dev.tern.testing.RecordingServerStreamListener;
import dev.tern.testing.RecordingServerTransportListener;
import dev.tern.testing.RecordingServerTransportListener.StreamCreated;
import dev.tern.testing.RecordingStreamListener;
import dev.tern.testing.RecordingTransportListener;
import dev.tern.testing.TestMarshallers;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the in-process transport does beyond the conformance suite ({@link InProcessTransportTest}
 * runs that): exact status descriptions, argument checks, in-process attributes, and the state
 * right after each call. The transport delivers events on the calling thread before the call
 * returns, so these tests check each listener at once instead of waiting; the helpers below fail if
 * an event has not come yet.
 *
 * <p>Driven through the SPI with tern-testing's recording listeners; each test also fails if a
 * listener saw a breach of the SPI contract.
 */
class InProcessTransportDetailTest {
  private static final MethodDescriptor<byte[], byte[]> METHOD =
      MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("test.Echo/Chat")
          .build();
  private static final Metadata.Key<String> GREETING =
      Metadata.Key.of("greeting", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> BLOB =
      Metadata.Key.of("blob-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private final String name = "transport-test-" + UUID.randomUUID();
  private RecordingServerListener serverListener = new RecordingServerListener();
  private final RecordingTransportListener clientListener = new RecordingTransportListener();
  private final List<RecordingClientStreamListener> clientStreamListeners = new ArrayList<>();
  private InProcessServer server;
  private InProcessTransport transport;

  @BeforeEach
  void startServer() throws IOException {
    server = new InProcessServer(name);
    server.start(serverListener);
  }

  @AfterEach
  void tearDown() {
    if (transport != null) {
      transport.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
    }
    server.shutdown();
    List<String> violations = new ArrayList<>(clientListener.violations());
    for (RecordingClientStreamListener listener : clientStreamListeners) {
      for (String v : listener.violations()) {
        violations.add("client stream: " + v);
      }
    }
    violations.addAll(serverListener.violations());
    assertThat(violations).as("SPI contract breaches seen by the listeners").isEmpty();
  }

  // ---- helpers ----

  private InProcessTransport connect() {
    return connect(GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE);
  }

  private InProcessTransport connect(int maxInboundMetadataSize) {
    transport =
        new InProcessTransport(
            new InProcessSocketAddress(name), "localhost", "test-agent", maxInboundMetadataSize);
    Runnable connect = transport.start(clientListener);
    connect.run();
    return transport;
  }

  /** A client stream listener whose contract breaches fail the test. */
  private RecordingClientStreamListener newListener() {
    RecordingClientStreamListener listener = new RecordingClientStreamListener();
    clientStreamListeners.add(listener);
    return listener;
  }

  private ClientStream startCall(RecordingClientStreamListener listener) {
    return startCall(listener, new Metadata());
  }

  private ClientStream startCall(RecordingClientStreamListener listener, Metadata headers) {
    ClientStream stream = transport.newStream(METHOD, headers, CallOptions.DEFAULT);
    stream.start(listener);
    return stream;
  }

  /** The server side of the one connection. */
  private RecordingServerTransportListener connection() {
    List<RecordingServerTransportListener> connections = serverListener.transports();
    assertThat(connections).as("connections accepted").hasSize(1);
    return connections.get(0);
  }

  /** The server's end of the next stream started; it must have reached the server already. */
  private StreamCreated nextServerCall() {
    assertThat(connection().streamsNotTaken())
        .as("streams at the server not yet taken")
        .isPositive();
    return connection().awaitStream();
  }

  /** What the client stream's {@code closed} got; it must have come already. */
  private static Closed closed(RecordingClientStreamListener listener) {
    assertThat(listener.isClosed()).as("client stream closed").isTrue();
    return listener.awaitClosed();
  }

  /** The status the server stream's {@code closed} got; it must have come already. */
  private static Status closed(RecordingServerStreamListener listener) {
    assertThat(listener.isClosed()).as("server stream closed").isTrue();
    return listener.awaitClosed();
  }

  /** The response headers the client stream got; they must have come already. */
  private static Metadata headers(RecordingClientStreamListener listener) {
    assertThat(listener.headersReceived()).as("response headers received").isTrue();
    return listener.awaitHeaders();
  }

  /** The messages delivered and not taken before, as text; takes them. */
  private static List<String> takeMessages(RecordingStreamListener listener) {
    List<String> texts = new ArrayList<>();
    while (listener.messagesNotTaken() > 0) {
      texts.add(new String(listener.awaitMessage(), StandardCharsets.UTF_8));
    }
    return texts;
  }

  private static int onReadyCount(RecordingStreamListener listener) {
    return Collections.frequency(listener.events(), "onReady");
  }

  /** A message as a caller would pass it: a byte-array stream, measured without reading. */
  private static InputStream message(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  // ---- connecting ----

  @Test
  void connectingToAMissingNameFailsUnavailable() {
    transport =
        new InProcessTransport(
            new InProcessSocketAddress("no-such-server"), "localhost", null, 100);
    transport.start(clientListener).run();

    assertThat(clientListener.events()).containsExactly("shutdown:UNAVAILABLE", "terminated");
    assertThat(clientListener.awaitShutdown().getDescription())
        .isEqualTo("Could not find server: no-such-server");
    RecordingClientStreamListener call = newListener();
    startCall(call);
    assertThat(closed(call).status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(closed(call).progress()).isEqualTo(RpcProgress.DROPPED);
  }

  @Test
  void aConnectionRejectedInTransportReadyNeverReportsReadyToTheClient() {
    serverListener.configureTransports(
        connection -> connection.rejectWhenReady(Status.UNAVAILABLE.withDescription("rejected")));

    connect();

    assertThat(clientListener.events()).containsExactly("shutdown:UNAVAILABLE", "terminated");
    assertThat(connection().events()).containsExactly("ready", "terminated");
  }

  @Test
  void aStreamTheServerRuntimeDoesNotAcceptFailsInternal() {
    serverListener.configureTransports(
        RecordingServerTransportListener::leaveStreamsWithoutListener);
    connect();
    RecordingClientStreamListener client = newListener();

    startCall(client);

    assertThat(closed(client).status().getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(clientListener.events()).containsExactly("ready", "inUse:true", "inUse:false");
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
    ClientStream stream = startCall(newListener());
    assertThatThrownBy(() -> stream.start(newListener()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("already started");
    assertThatThrownBy(() -> stream.writeMessage(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("message");
  }

  @Test
  void startTwiceIsRejected() {
    connect();

    assertThatThrownBy(() -> transport.start(clientListener))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already started");
  }

  @Test
  void attributesCarryTheAddressAndPrivacyOnBothSides() {
    connect();
    RecordingClientStreamListener call = newListener();
    ClientStream stream = startCall(call);

    InProcessSocketAddress address = new InProcessSocketAddress(name);
    for (Attributes attrs : List.of(transport.getAttributes(), stream.getAttributes())) {
      assertThat(attrs.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isEqualTo(address);
      assertThat(attrs.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR)).isEqualTo(address);
      assertThat(attrs.get(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL))
          .isEqualTo(SecurityLevel.PRIVACY_AND_INTEGRITY);
      assertThat(attrs.get(Grpc.TRANSPORT_ATTR_SSL_SESSION)).isNull();
    }
    assertThat(connection().awaitReady().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isEqualTo(address);
    // The runtime's transportReady adds ADDED_KEY, as a transport filter would.
    Attributes serverStreamAttrs = nextServerCall().stream().getAttributes();
    assertThat(serverStreamAttrs.get(RecordingServerTransportListener.ADDED_KEY))
        .isEqualTo(RecordingServerTransportListener.ADDED);
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
    ClientStream stream = startCall(newListener(), headers);

    headers.put(GREETING, "changed after start");

    Metadata seen = nextServerCall().headers();
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
    stream.start(newListener());

    assertThat(nextServerCall().stream().getAuthority()).isEqualTo("other.example");
  }

  @Test
  void responseHeadersAndTrailersCarryBinaryValues() {
    connect();
    RecordingClientStreamListener client = newListener();
    startCall(client);
    StreamCreated server = nextServerCall();
    Metadata headers = new Metadata();
    headers.put(BLOB, new byte[] {1, 2, 3});
    Metadata trailers = new Metadata();
    trailers.put(BLOB, new byte[] {4, 5});

    server.stream().writeHeaders(headers, true);
    server.stream().close(Status.NOT_FOUND.withDescription("nope"), trailers);

    assertThat(headers(client).get(BLOB)).containsExactly(1, 2, 3);
    assertThat(closed(client).trailers().get(BLOB)).containsExactly(4, 5);
    assertThat(closed(client).status().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(closed(client).status().getDescription()).isEqualTo("nope");
    assertThat(closed(server.listener()).isOk()).isTrue();
  }

  @Test
  void aMessageWithoutHeadersIsPrecededByEmptyHeaders() {
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = startCall(client);
    client.request(stream, 1);

    nextServerCall().stream().writeMessage(message("first"));

    assertThat(client.events()).containsExactly("headers", "message");
    assertThat(takeMessages(client)).containsExactly("first");
    assertThat(headers(client).headerCount()).isZero();
  }

  @Test
  void senderBecomesReadyWhenTheReceiverRequests() {
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = startCall(client);
    StreamCreated server = nextServerCall();
    assertThat(stream.isReady()).isFalse();
    assertThat(onReadyCount(client)).isZero();

    server.listener().request(server.stream(), 1);
    assertThat(stream.isReady()).isTrue();
    assertThat(onReadyCount(client)).isOne();

    stream.writeMessage(message("one"));
    assertThat(stream.isReady()).isFalse();
    stream.writeMessage(message("queued"));
    server.listener().request(server.stream(), 1);
    assertThat(takeMessages(server.listener())).containsExactly("one", "queued");
    assertThat(stream.isReady()).isFalse();
    assertThat(onReadyCount(client)).isOne();

    server.listener().request(server.stream(), 1);
    assertThat(stream.isReady()).isTrue();
    assertThat(onReadyCount(client)).isEqualTo(2);
  }

  @Test
  void serverBecomesReadyWhenTheClientRequests() {
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = startCall(client);
    StreamCreated server = nextServerCall();
    assertThat(server.stream().isReady()).isFalse();

    client.request(stream, 2);

    assertThat(server.stream().isReady()).isTrue();
    assertThat(onReadyCount(server.listener())).isOne();
  }

  @Test
  void requestMustBePositive() {
    connect();
    ClientStream stream = startCall(newListener());
    StreamCreated server = nextServerCall();

    assertThatThrownBy(() -> stream.request(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numMessages");
    assertThatThrownBy(() -> server.stream().request(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numMessages");
  }

  @Test
  void halfCloseReachesTheServerOnlyAfterItsQueuedMessages() {
    connect();
    ClientStream stream = startCall(newListener());
    StreamCreated server = nextServerCall();
    stream.writeMessage(message("1"));
    stream.writeMessage(message("2"));
    stream.halfClose();
    assertThat(server.listener().events()).isEmpty();

    server.listener().request(server.stream(), 1);
    assertThat(server.listener().events()).containsExactly("message");
    assertThat(takeMessages(server.listener())).containsExactly("1");
    server.listener().request(server.stream(), 1);
    assertThat(server.listener().events()).containsExactly("message", "message", "halfClosed");
    assertThat(takeMessages(server.listener())).containsExactly("2");
  }

  @Test
  void writesAfterHalfCloseAreDropped() {
    connect();
    ClientStream stream = startCall(newListener());
    StreamCreated server = nextServerCall();
    server.listener().request(server.stream(), 5);
    stream.halfClose();

    TrackingStream late = new TrackingStream("late");
    stream.writeMessage(late);

    assertThat(server.listener().events()).containsExactly("halfClosed");
    assertThat(late.closed).isTrue();
  }

  @Test
  void statusCauseDoesNotCrossToTheClient() {
    connect();
    RecordingClientStreamListener closedCall = newListener();
    startCall(closedCall);
    nextServerCall().stream()
        .close(
            Status.INTERNAL.withDescription("boom").withCause(new IllegalStateException("secret")),
            new Metadata());
    RecordingClientStreamListener cancelledCall = newListener();
    startCall(cancelledCall);
    nextServerCall().stream()
        .cancel(Status.ABORTED.withDescription("gone").withCause(new RuntimeException("secret")));

    Status closedStatus = closed(closedCall).status();
    assertThat(closedStatus.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(closedStatus.getDescription()).isEqualTo("boom");
    assertThat(closedStatus.getCause()).isNull();
    Status cancelledStatus = closed(cancelledCall).status();
    assertThat(cancelledStatus.getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(cancelledStatus.getDescription()).isEqualTo("gone");
    assertThat(cancelledStatus.getCause()).isNull();
  }

  // ---- cancellation ----

  @Test
  void clientCancelClosesTheClientAtOnceAndReachesTheServer() {
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = startCall(client);
    StreamCreated server = nextServerCall();
    server.stream().writeHeaders(new Metadata(), true);
    TrackingStream unread = new TrackingStream("unread");
    server.stream().writeMessage(unread);

    Status reason = Status.CANCELLED.withDescription("user gave up");
    stream.cancel(reason);
    stream.cancel(Status.DEADLINE_EXCEEDED); // idempotent

    assertThat(client.events()).containsExactly("headers", "closed:CANCELLED");
    assertThat(closed(client).status()).isSameAs(reason);
    Status serverStatus = closed(server.listener());
    assertThat(serverStatus.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(serverStatus.getDescription()).isEqualTo("client cancelled");
    assertThat(unread.closed).isTrue();
    assertThat(server.stream().isReady()).isFalse();
  }

  @Test
  void serverCancelReachesTheClientWithItsStatus() {
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = startCall(client);
    StreamCreated server = nextServerCall();
    stream.writeMessage(message("never read"));

    server.stream().cancel(Status.DEADLINE_EXCEEDED.withDescription("too slow"));

    assertThat(closed(client).status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(closed(client).status().getDescription()).isEqualTo("too slow");
    assertThat(client.events()).filteredOn(event -> event.startsWith("closed:")).hasSize(1);
    assertThat(server.listener().events()).containsExactly("closed:DEADLINE_EXCEEDED");
    assertThat(stream.isReady()).isFalse();
  }

  @Test
  void cancelBeforeStartClosesOnStartWithoutReachingTheServer() {
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.cancel(Status.CANCELLED.withDescription("early"));

    stream.start(client);

    assertThat(client.events()).containsExactly("closed:CANCELLED");
    assertThat(closed(client).progress()).isEqualTo(RpcProgress.DROPPED);
    assertThat(connection().events()).doesNotContain("streamCreated");
    assertThat(clientListener.events()).containsExactly("ready");
  }

  // ---- size limits ----

  @Test
  void tooLargeRequestMessageFailsBothSidesAndIsNeverDelivered() {
    serverListener.setMaxInboundMessageSize(4);
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = startCall(client);
    StreamCreated server = nextServerCall();
    server.listener().request(server.stream(), 5);

    stream.writeMessage(message("ok"));
    stream.writeMessage(message("far too large"));

    assertThat(takeMessages(server.listener())).containsExactly("ok");
    assertThat(closed(server.listener()).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(closed(client).status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(closed(client).status().getDescription())
        .isEqualTo("Received message larger than max (13 vs. 4)");
  }

  @Test
  void tooLargeResponseMessageFailsBothSidesAndOtherStreamsCarryOn() {
    connect();
    RecordingClientStreamListener small = newListener();
    ClientStream smallStream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    smallStream.setMaxInboundMessageSize(3);
    smallStream.start(small);
    StreamCreated smallServer = nextServerCall();
    RecordingClientStreamListener other = newListener();
    ClientStream otherStream = startCall(other);
    StreamCreated otherServer = nextServerCall();
    small.request(smallStream, 1);
    other.request(otherStream, 1);

    TrackingStream big = new TrackingStream("toolarge");
    smallServer.stream().writeMessage(big);
    otherServer.stream().writeMessage(message("toolarge"));

    assertThat(small.messagesRead()).isZero();
    assertThat(big.closed).isTrue();
    assertThat(closed(small).status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(closed(small).status().getDescription())
        .isEqualTo("Received message larger than max (8 vs. 3)");
    assertThat(closed(smallServer.listener()).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(takeMessages(other)).containsExactly("toolarge");
    assertThat(other.isClosed()).isFalse();
  }

  @Test
  void tooLargeQueuedMessageFailsWhenItIsRequested() {
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.setMaxInboundMessageSize(5);
    stream.start(client);
    StreamCreated server = nextServerCall();
    server.stream().writeMessage(message("fine"));
    server.stream().writeMessage(message("not fine"));

    client.request(stream, 2);

    assertThat(takeMessages(client)).containsExactly("fine");
    assertThat(closed(client).status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void messageOfUnknownLengthIsMeasuredByReadingIt() {
    serverListener.setMaxInboundMessageSize(4);
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = startCall(client);
    StreamCreated server = nextServerCall();
    server.listener().request(server.stream(), 2);

    stream.writeMessage(new UnknownLengthStream("four"));
    stream.writeMessage(new UnknownLengthStream("fives"));

    assertThat(takeMessages(server.listener())).containsExactly("four");
    assertThat(closed(client).status().getDescription())
        .isEqualTo("Received message larger than max (5 vs. 4)");
  }

  @Test
  void tooLargeOutboundMessageFailsTheCall() {
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.setMaxOutboundMessageSize(2);
    stream.start(client);
    StreamCreated server = nextServerCall();
    server.listener().request(server.stream(), 1);

    stream.writeMessage(message("abc"));

    assertThat(server.listener().messagesRead()).isZero();
    assertThat(closed(client).status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(closed(client).status().getDescription())
        .isEqualTo("Sent message larger than max (3 vs. 2)");
    assertThat(closed(server.listener()).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void tooLargeRequestMetadataFailsTheCallBeforeTheServerSeesIt() throws IOException {
    server.shutdown();
    server = new InProcessServer(name, null, 1024, 100);
    serverListener = new RecordingServerListener();
    server.start(serverListener);
    connect();
    RecordingClientStreamListener client = newListener();
    Metadata headers = new Metadata();
    headers.put(GREETING, "x".repeat(100));

    startCall(client, headers);

    assertThat(closed(client).status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(closed(client).status().getDescription())
        .startsWith("Request header metadata larger than");
    assertThat(connection().events()).doesNotContain("streamCreated");
    assertThat(clientListener.events()).containsExactly("ready");
  }

  @Test
  void tooLargeResponseHeadersFailTheCall() {
    connect(100);
    RecordingClientStreamListener client = newListener();
    startCall(client);
    StreamCreated server = nextServerCall();
    Metadata headers = new Metadata();
    headers.put(BLOB, new byte[60]); // 80 bytes of base64 + 8 + 32 > 100

    server.stream().writeHeaders(headers, true);

    assertThat(client.events()).containsExactly("closed:RESOURCE_EXHAUSTED");
    assertThat(closed(client).status().getDescription())
        .isEqualTo("Response header metadata larger than max (120 vs. 100)");
    assertThat(closed(server.listener()).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void tooLargeTrailersFailTheClientButTheServersCloseCompleted() {
    connect(100);
    RecordingClientStreamListener client = newListener();
    startCall(client);
    StreamCreated server = nextServerCall();
    Metadata trailers = new Metadata();
    trailers.put(GREETING, "y".repeat(80));

    server.stream().close(Status.OK, trailers);

    assertThat(closed(client).status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(closed(client).status().getDescription())
        .startsWith("Response trailer metadata larger");
    assertThat(closed(client).trailers().headerCount()).isZero();
    assertThat(closed(server.listener()).isOk()).isTrue();
  }

  // ---- transport lifecycle ----

  @Test
  void streamStaysInUseUntilTheClientHasReadTheClose() {
    connect();
    RecordingClientStreamListener client = newListener();
    ClientStream stream = startCall(client);
    StreamCreated server = nextServerCall();
    server.stream().writeMessage(message("pending"));
    server.stream().close(Status.OK, new Metadata());
    assertThat(clientListener.events()).containsExactly("ready", "inUse:true");

    client.request(stream, 1);

    assertThat(closed(client).status().isOk()).isTrue();
    assertThat(clientListener.events()).containsExactly("ready", "inUse:true", "inUse:false");
  }

  @Test
  void shutdownLetsStreamsInFlightFinishThenTerminates() {
    connect();
    RecordingClientStreamListener inFlight = newListener();
    startCall(inFlight);
    StreamCreated server = nextServerCall();

    transport.shutdown(Status.UNAVAILABLE.withDescription("channel shutdown"));
    transport.shutdown(Status.UNAVAILABLE.withDescription("again")); // idempotent
    RecordingClientStreamListener late = newListener();
    startCall(late);

    assertThat(closed(late).status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(closed(late).status().getDescription()).isEqualTo("channel shutdown");
    assertThat(closed(late).progress()).isEqualTo(RpcProgress.DROPPED);
    assertThat(clientListener.events())
        .containsExactly("ready", "inUse:true", "shutdown:UNAVAILABLE");
    assertThat(connection().events()).containsExactly("ready", "streamCreated");

    server.stream().close(Status.OK, new Metadata());

    assertThat(closed(inFlight).status().isOk()).isTrue();
    assertThat(clientListener.events())
        .containsExactly(
            "ready", "inUse:true", "shutdown:UNAVAILABLE", "inUse:false", "terminated");
    assertThat(connection().events()).containsExactly("ready", "streamCreated", "terminated");
  }

  @Test
  void serverTransportShutdownNowFailsClientsWithTheReason() {
    connect();
    RecordingClientStreamListener client = newListener();
    startCall(client);
    StreamCreated server = nextServerCall();

    connection().transport().shutdownNow(Status.UNAVAILABLE.withDescription("server stopping"));

    assertThat(closed(client).status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(closed(client).status().getDescription()).isEqualTo("server stopping");
    assertThat(closed(server.listener()).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(clientListener.events()).endsWith("terminated");
  }

  @Test
  void serverScheduledExecutorIsTheServers() {
    connect();

    assertThat(connection().transport().getScheduledExecutorService())
        .isSameAs(server.getScheduledExecutorService());
  }

  // ---- ping ----

  @Test
  void pingAfterShutdownFailsUnavailable() {
    connect();
    transport.shutdown(Status.UNAVAILABLE);
    RecordingPingCallback ping = new RecordingPingCallback();

    transport.ping(ping, Runnable::run);

    RecordingPingCallback.Outcome outcome = ping.await();
    // On the calling thread: the direct executor ran it within ping().
    assertThat(outcome.threadName()).isEqualTo(Thread.currentThread().getName());
    assertThat(outcome.roundTripTimeNanos()).isNull();
    assertThat(outcome.failure().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(outcome.failure().getDescription()).isEqualTo("transport is shut down");
    assertThat(ping.calledTwice()).isFalse();
  }

  // ---- message streams ----

  /** A message stream that records whether it was closed. */
  private static final class TrackingStream extends ByteArrayInputStream {
    volatile boolean closed;

    TrackingStream(String text) {
      super(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws IOException {
      closed = true;
      super.close();
    }
  }

  /** A message stream whose length the transport cannot know without reading it. */
  private static final class UnknownLengthStream extends FilterInputStream {
    UnknownLengthStream(String text) {
      super(message(text));
    }

    @Override
    public int available() {
      return 0;
    }
  }
}
