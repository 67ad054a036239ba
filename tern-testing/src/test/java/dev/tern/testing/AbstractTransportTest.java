package dev.tern.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.SharedExecutors;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.spi.ServerStream;
import dev.tern.spi.Stream;
import dev.tern.spi.TransportServer;
import dev.tern.testing.RecordingClientStreamListener.Closed;
import dev.tern.testing.RecordingServerTransportListener.StreamCreated;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The transport conformance suite at the SPI level: every transport (in-process, HTTP/2, ...)
 * extends it and must pass every test. The tests play the runtime's part with recording listeners
 * and check the contract of {@code dev.tern.spi} (see the package docs and the phase-2 contract):
 * streams carry headers, messages and trailers both ways; flow control holds senders back;
 * cancellation, shutdown, ping and in-use tracking behave as specified; size limits fail calls with
 * RESOURCE_EXHAUSTED.
 *
 * <p>Subclasses implement two hooks. {@link #newServer()} returns a transport server that is not
 * started, bound to an ephemeral port or a fresh in-process name, with default limits (8 KiB of
 * inbound metadata). {@link #newClientTransport} returns a client transport to it, not started,
 * with default limits. Each test gets a new server and one client transport, started and ready;
 * everything is shut down after the test, which also fails if any listener saw a contract breach.
 *
 * <p>Nothing here assumes more than the SPI: no thread, timing or address form of a particular
 * transport.
 */
public abstract class AbstractTransportTest {
  /** Any method will do: transports carry bytes, the runtime gives them a shape. */
  protected static final MethodDescriptor<byte[], byte[]> METHOD =
      MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
          .setFullMethodName("tern.testing.Transport/Stream")
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .build();

  /** The default limit on one message, as the runtime sets it on each stream. */
  protected static final int MAX_MESSAGE_SIZE = GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE;

  /** The default limit on inbound metadata the hooks must configure. */
  protected static final int MAX_METADATA_SIZE = GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE;

  /** Flow-control tests write messages of this size... */
  private static final int FLOW_CONTROL_MESSAGE_SIZE = 16 * 1024;

  /** ...and expect the sender to stop being ready before this many (16 MiB in total). */
  private static final int FLOW_CONTROL_MAX_WRITES = 1024;

  private static final Metadata.Key<String> ASCII_KEY =
      Metadata.Key.of("tern-test-ascii", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> BINARY_KEY =
      Metadata.Key.of("tern-test-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private static final Metadata.Key<String> MULTI_KEY =
      Metadata.Key.of("tern-test-multi", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> EMPTY_KEY =
      Metadata.Key.of("tern-test-empty", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> ID_KEY =
      Metadata.Key.of("tern-test-id", Metadata.ASCII_STRING_MARSHALLER);

  /** The server of the current test, started. */
  protected TransportServer server;

  /** Records what the server reports. */
  protected RecordingServerListener serverListener;

  /** The client transport of the current test, started and ready. */
  protected ManagedClientTransport client;

  /** Records what {@link #client} reports. */
  protected RecordingTransportListener clientListener;

  private final List<ManagedClientTransport> clients = new ArrayList<>();
  private final List<RecordingTransportListener> clientListeners = new ArrayList<>();
  private final List<RecordingClientStreamListener> clientStreamListeners = new ArrayList<>();
  private RecordingServerTransportListener serverTransport;
  private ExecutorService callbackExecutor;

  /**
   * A new transport server, not started, bound to an ephemeral port or a fresh in-process name,
   * with default limits.
   */
  protected abstract TransportServer newServer();

  /** A new client transport to {@code server} (started), not started itself, default limits. */
  protected abstract ManagedClientTransport newClientTransport(TransportServer server);

  /**
   * Whether the transport enforces message and metadata size limits itself (true for every Tern
   * transport); if not, the size tests are skipped.
   */
  protected boolean sizesEnforcedByTransport() {
    return true;
  }

  @BeforeEach
  protected void setUpTransports() throws IOException {
    callbackExecutor =
        Executors.newSingleThreadExecutor(SharedExecutors.daemonThreads("tern-test-callbacks"));
    server = newServer();
    serverListener = new RecordingServerListener();
    server.start(serverListener);
    clientListener = new RecordingTransportListener();
    client = startClient(clientListener);
    clientListener.awaitReady();
  }

  @AfterEach
  protected void tearDownTransports() {
    try {
      for (ManagedClientTransport transport : clients) {
        transport.shutdownNow(Status.UNAVAILABLE.withDescription("test finished"));
      }
      if (server != null) {
        server.shutdown();
      }
      if (serverListener != null) {
        for (RecordingServerTransportListener transport : serverListener.transports()) {
          if (!transport.isTerminated()) {
            transport.transport().shutdownNow(Status.UNAVAILABLE.withDescription("test finished"));
          }
        }
        for (RecordingTransportListener listener : clientListeners) {
          listener.awaitTerminated();
        }
        serverListener.awaitShutdown();
        for (RecordingServerTransportListener transport : serverListener.transports()) {
          transport.awaitTerminated();
        }
      }
    } finally {
      if (callbackExecutor != null) {
        callbackExecutor.shutdownNow();
      }
    }
    List<String> violations = new ArrayList<>();
    for (RecordingTransportListener listener : clientListeners) {
      violations.addAll(listener.violations());
    }
    for (RecordingClientStreamListener listener : clientStreamListeners) {
      for (String v : listener.violations()) {
        violations.add("client stream: " + v);
      }
    }
    if (serverListener != null) {
      violations.addAll(serverListener.violations());
    }
    assertThat(violations).as("SPI contract breaches seen by the listeners").isEmpty();
  }

  // ---------------------------------------------------------------- helpers

  /** Creates and starts another client transport to {@link #server}, running start's task. */
  protected final ManagedClientTransport startClient(RecordingTransportListener listener) {
    ManagedClientTransport transport = newClientTransport(server);
    clients.add(transport);
    clientListeners.add(listener);
    Runnable afterStart = transport.start(listener);
    if (afterStart != null) {
      afterStart.run();
    }
    return transport;
  }

  /** The server side of {@link #client} (waits for the server to accept it). */
  protected final RecordingServerTransportListener serverTransport() {
    if (serverTransport == null) {
      serverTransport = serverListener.awaitTransport();
    }
    return serverTransport;
  }

  /** A listener whose violations are checked after the test. */
  protected final RecordingClientStreamListener newClientStreamListener() {
    RecordingClientStreamListener listener = new RecordingClientStreamListener();
    clientStreamListeners.add(listener);
    return listener;
  }

  /** Both ends of one stream. */
  protected record StreamPair(
      ClientStream clientStream,
      RecordingClientStreamListener clientListener,
      ServerStream serverStream,
      RecordingServerStreamListener serverListener,
      Metadata serverHeaders) {}

  /** Starts a stream on {@link #client} and waits for the server to see it. */
  protected final StreamPair startStream(Metadata headers) {
    ClientStream stream = client.newStream(METHOD, headers, CallOptions.DEFAULT);
    stream.setMaxInboundMessageSize(MAX_MESSAGE_SIZE);
    RecordingClientStreamListener listener = newClientStreamListener();
    stream.start(listener);
    StreamCreated created = serverTransport().awaitStream();
    assertThat(created.fullMethodName()).isEqualTo(METHOD.getFullMethodName());
    return new StreamPair(
        stream, listener, created.stream(), created.listener(), created.headers());
  }

  /** {@link #startStream(Metadata)} with empty headers. */
  protected final StreamPair startStream() {
    return startStream(new Metadata());
  }

  /** A stream over {@code bytes}, as a marshaller would make it. */
  protected static InputStream message(byte[] bytes) {
    return TestMarshallers.knownLengthStream(bytes);
  }

  /** A stream over the UTF-8 bytes of {@code text}. */
  protected static InputStream message(String text) {
    return message(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Writes, flushes, and checks the peer receives it. */
  private static void send(
      Stream from, Stream to, RecordingStreamListener toListener, String message) {
    from.writeMessage(message(message));
    from.flush();
    toListener.request(to, 1);
    assertThat(text(toListener.awaitMessage())).isEqualTo(message);
  }

  /** Ends a stream normally: client half-close, server close OK; both sides see it. */
  private static void finish(StreamPair pair) {
    pair.clientStream().halfClose();
    pair.serverListener().awaitHalfClosed();
    pair.serverStream().close(Status.OK, new Metadata());
    assertThat(pair.clientListener().awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(pair.serverListener().awaitClosed().getCode()).isEqualTo(Status.Code.OK);
  }

  /** Printable ASCII of {@code length} characters. */
  private static String asciiValue(int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append((char) (' ' + i % 95));
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

  private static byte[] pattern(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 31 + (i >>> 8));
    }
    return bytes;
  }

  /** ASCII (6 KiB), binary (all 256 byte values), repeated and empty values: under 8 KiB. */
  private static Metadata richMetadata(String tag) {
    Metadata md = new Metadata();
    md.put(ASCII_KEY, tag + asciiValue(6 * 1024));
    md.put(BINARY_KEY, allByteValues());
    md.put(MULTI_KEY, tag + "-first");
    md.put(MULTI_KEY, tag + "-second");
    md.put(EMPTY_KEY, "");
    return md;
  }

  private static void assertRichMetadata(Metadata md, String tag) {
    assertThat(md.get(ASCII_KEY)).isEqualTo(tag + asciiValue(6 * 1024));
    assertThat(md.get(BINARY_KEY)).isEqualTo(allByteValues());
    assertThat(md.getAll(MULTI_KEY)).containsExactly(tag + "-first", tag + "-second");
    assertThat(md.get(EMPTY_KEY)).isEqualTo("");
  }

  private static Metadata bigMetadata() {
    Metadata md = new Metadata();
    md.put(ASCII_KEY, asciiValue(MAX_METADATA_SIZE + 1024));
    return md;
  }

  private static Metadata withId(String id) {
    Metadata md = new Metadata();
    md.put(ID_KEY, id);
    return md;
  }

  // ---------------------------------------------------------------- readiness and attributes

  @Test
  public void transportsBecomeReadyWithAddresses() {
    assertThat(clientListener.isReady()).isTrue();
    assertThat(clientListener.isShutdown()).isFalse();
    assertThat(server.getListenSocketAddresses()).isNotEmpty();
    assertThat(server.getScheduledExecutorService()).isNotNull();
    Attributes attrs = serverTransport().awaitReady();
    assertThat(attrs.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isNotNull();
    assertThat(attrs.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR)).isNotNull();
    assertThat(serverTransport().transport().getScheduledExecutorService()).isNotNull();
  }

  @Test
  public void serverStreamShowsAttributesReturnedByTransportReady() {
    StreamPair pair = startStream();
    Attributes returned = serverTransport().returnedAttributes();
    assertThat(returned).isNotNull();
    assertThat(pair.serverStream().getAttributes()).isEqualTo(returned);
    assertThat(pair.serverStream().getAttributes().get(RecordingServerTransportListener.ADDED_KEY))
        .isEqualTo(RecordingServerTransportListener.ADDED);
    finish(pair);
  }

  // ---------------------------------------------------------------- streams

  @Test
  public void streamCarriesHeadersMessagesAndTrailersBothWays() {
    StreamPair pair = startStream(richMetadata("request"));
    assertRichMetadata(pair.serverHeaders(), "request");

    send(pair.clientStream(), pair.serverStream(), pair.serverListener(), "hello server");

    pair.serverStream().writeHeaders(richMetadata("response"), true);
    assertRichMetadata(pair.clientListener().awaitHeaders(), "response");

    send(pair.serverStream(), pair.clientStream(), pair.clientListener(), "hello client");

    pair.clientStream().halfClose();
    pair.serverListener().awaitHalfClosed();
    pair.serverStream().close(Status.OK, richMetadata("trailer"));

    Closed closed = pair.clientListener().awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(closed.progress()).isEqualTo(RpcProgress.PROCESSED);
    assertRichMetadata(closed.trailers(), "trailer");
    assertThat(pair.serverListener().awaitClosed().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  public void serverSeesReservedRequestHeaders() {
    Metadata headers = new Metadata();
    headers.put(GrpcHeaders.TIMEOUT, "1000m");
    StreamPair pair = startStream(headers);
    assertThat(pair.serverHeaders().get(GrpcHeaders.TIMEOUT)).isEqualTo("1000m");
    finish(pair);
  }

  @Test
  public void errorStatusWithDescriptionReachesClient() {
    StreamPair pair = startStream();
    pair.serverStream().writeHeaders(new Metadata(), true);
    pair.clientListener().awaitHeaders();
    String description = "not here: caf\u00e9 \u2713 100% sure\nsecond line";
    Metadata trailers = new Metadata();
    trailers.put(ASCII_KEY, "detail");
    pair.serverStream().close(Status.NOT_FOUND.withDescription(description), trailers);

    Closed closed = pair.clientListener().awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(closed.status().getDescription()).isEqualTo(description);
    assertThat(closed.trailers().get(ASCII_KEY)).isEqualTo("detail");
    pair.serverListener().awaitClosed();
  }

  @Test
  public void trailersOnlyResponseSkipsHeadersRead() {
    StreamPair pair = startStream();
    Metadata trailers = new Metadata();
    trailers.put(ASCII_KEY, "only trailers");
    pair.serverStream().close(Status.PERMISSION_DENIED.withDescription("go away"), trailers);

    Closed closed = pair.clientListener().awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(closed.status().getDescription()).isEqualTo("go away");
    assertThat(closed.trailers().get(ASCII_KEY)).isEqualTo("only trailers");
    // closed() is the last event, so headersRead can no longer come.
    assertThat(pair.clientListener().headersReceived()).isFalse();
    pair.serverListener().awaitClosed();
  }

  @Test
  public void messagesArriveInOrder() {
    StreamPair pair = startStream();
    int count = 50;
    pair.serverListener().request(pair.serverStream(), count);
    for (int i = 0; i < count; i++) {
      pair.clientStream().writeMessage(message("request " + i));
    }
    pair.clientStream().flush();
    for (int i = 0; i < count; i++) {
      assertThat(text(pair.serverListener().awaitMessage())).isEqualTo("request " + i);
    }
    pair.serverStream().writeHeaders(new Metadata(), false);
    for (int i = 0; i < count; i++) {
      pair.serverStream().writeMessage(message("response " + i));
    }
    pair.serverStream().flush();
    pair.clientListener().request(pair.clientStream(), count);
    for (int i = 0; i < count; i++) {
      assertThat(text(pair.clientListener().awaitMessage())).isEqualTo("response " + i);
    }
    finish(pair);
  }

  @Test
  public void closedWaitsUntilRequestedMessagesAreDelivered() {
    StreamPair pair = startStream();
    pair.serverStream().writeHeaders(new Metadata(), false);
    pair.serverStream().writeMessage(message("one"));
    pair.serverStream().writeMessage(message("two"));
    pair.serverStream().close(Status.OK, new Metadata());
    pair.clientListener().request(pair.clientStream(), 1);
    assertThat(text(pair.clientListener().awaitMessage())).isEqualTo("one");
    // "two" is still undelivered, so closing now would lose it.
    assertThat(pair.clientListener().isClosed()).as("closed with a message undelivered").isFalse();
    pair.clientListener().request(pair.clientStream(), 1);
    assertThat(text(pair.clientListener().awaitMessage())).isEqualTo("two");
    assertThat(pair.clientListener().awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    pair.clientStream().halfClose();
    pair.serverListener().awaitClosed();
  }

  @Test
  public void largeMessagesBothWays() {
    byte[] request = pattern(1024 * 1024);
    byte[] response = pattern(1024 * 1024 + 7);
    StreamPair pair = startStream();
    pair.clientStream().writeMessage(message(request));
    pair.clientStream().flush();
    pair.serverListener().request(pair.serverStream(), 1);
    assertThat(pair.serverListener().awaitMessage()).isEqualTo(request);

    pair.serverStream().writeHeaders(new Metadata(), false);
    pair.serverStream().writeMessage(message(response));
    pair.serverStream().flush();
    pair.clientListener().request(pair.clientStream(), 1);
    assertThat(pair.clientListener().awaitMessage()).isEqualTo(response);
    finish(pair);
  }

  @Test
  public void emptyMessagesArrive() {
    StreamPair pair = startStream();
    pair.clientStream().writeMessage(message(new byte[0]));
    pair.clientStream().flush();
    pair.serverListener().request(pair.serverStream(), 1);
    assertThat(pair.serverListener().awaitMessage()).isEmpty();
    finish(pair);
  }

  @Test
  public void concurrentStreamsStayApart() {
    int count = 10;
    List<ClientStream> clientStreams = new ArrayList<>();
    List<RecordingClientStreamListener> listeners = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ClientStream stream = client.newStream(METHOD, withId("" + i), CallOptions.DEFAULT);
      stream.setMaxInboundMessageSize(MAX_MESSAGE_SIZE);
      RecordingClientStreamListener listener = newClientStreamListener();
      stream.start(listener);
      stream.writeMessage(message("from client " + i));
      stream.flush();
      clientStreams.add(stream);
      listeners.add(listener);
    }
    // The server answers each stream with what it received on it, whatever order they arrive in.
    for (int i = 0; i < count; i++) {
      StreamCreated created = serverTransport().awaitStream();
      String id = created.headers().get(ID_KEY);
      created.listener().request(created.stream(), 1);
      assertThat(text(created.listener().awaitMessage())).isEqualTo("from client " + id);
      created.stream().writeHeaders(new Metadata(), false);
      created.stream().writeMessage(message("from server " + id));
      created.stream().close(Status.OK, withId(id));
    }
    for (int i = 0; i < count; i++) {
      RecordingClientStreamListener listener = listeners.get(i);
      listener.request(clientStreams.get(i), 1);
      assertThat(text(listener.awaitMessage())).isEqualTo("from server " + i);
      Closed closed = listener.awaitClosed();
      assertThat(closed.status().getCode()).isEqualTo(Status.Code.OK);
      assertThat(closed.trailers().get(ID_KEY)).isEqualTo("" + i);
    }
  }

  @Test
  public void serverCloseBeforeClientHalfCloseEndsStream() {
    StreamPair pair = startStream();
    pair.serverStream().close(Status.OK, new Metadata());
    assertThat(pair.clientListener().awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    // The client may still act on the stream; the calls are ignored.
    pair.clientStream().writeMessage(message("too late"));
    pair.clientStream().flush();
    pair.clientStream().halfClose();
    pair.clientStream().request(1);
    assertThat(pair.serverListener().awaitClosed().getCode()).isEqualTo(Status.Code.OK);
    assertThat(pair.serverListener().messagesRead()).isZero();
  }

  // ---------------------------------------------------------------- flow control

  @Test
  public void flowControlHoldsBackClientWhileServerRequestsNothing() {
    StreamPair pair = startStream();
    checkFlowControl(
        pair.clientStream(),
        pair.clientListener(),
        pair.serverStream(),
        pair.serverListener(),
        "client");
    finish(pair);
  }

  @Test
  public void flowControlHoldsBackServerWhileClientRequestsNothing() {
    StreamPair pair = startStream();
    pair.serverStream().writeHeaders(new Metadata(), true);
    pair.clientListener().awaitHeaders();
    checkFlowControl(
        pair.serverStream(),
        pair.serverListener(),
        pair.clientStream(),
        pair.clientListener(),
        "server");
    finish(pair);
  }

  /**
   * The sender writes while it is ready to a receiver that requested nothing: it must stop being
   * ready after a bounded amount, the receiver must get only what it requests, and reading frees
   * the sender again.
   */
  private static void checkFlowControl(
      Stream sender,
      RecordingStreamListener senderListener,
      Stream receiver,
      RecordingStreamListener receiverListener,
      String who) {
    byte[] payload = pattern(FLOW_CONTROL_MESSAGE_SIZE);
    int written = 0;
    while (sender.isReady() && written < FLOW_CONTROL_MAX_WRITES) {
      sender.writeMessage(message(payload));
      sender.flush();
      written++;
    }
    assertThat(sender.isReady())
        .as(
            "%s still ready after writing %s messages of %s bytes to a peer that requested none",
            who, written, FLOW_CONTROL_MESSAGE_SIZE)
        .isFalse();
    assertThat(receiverListener.messagesRead()).as("messages delivered unrequested").isZero();

    receiverListener.request(receiver, 1);
    if (written == 0) {
      // A transport that counts the receiver's requests becomes ready only now.
      senderListener.awaitReady(sender);
      sender.writeMessage(message(payload));
      sender.flush();
      written = 1;
    }
    assertThat(receiverListener.awaitMessage()).isEqualTo(payload);
    assertThat(receiverListener.messagesRead()).as("messages delivered for one request").isOne();

    // Room for everything written plus one more: the sender must become ready again.
    receiverListener.request(receiver, written);
    for (int i = 1; i < written; i++) {
      assertThat(receiverListener.awaitMessage()).isEqualTo(payload);
    }
    senderListener.awaitReady(sender);
    assertThat(receiverListener.messagesRead()).isEqualTo(written);
  }

  // ---------------------------------------------------------------- cancellation

  @Test
  public void clientCancelReachesServer() {
    StreamPair pair = startStream();
    pair.clientStream().cancel(Status.CANCELLED.withDescription("cancelled by the test"));
    Closed closed = pair.clientListener().awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(pair.serverListener().awaitClosed().getCode()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  public void cancelTwiceAndCallsAfterCancelAreHarmless() {
    StreamPair pair = startStream();
    pair.clientStream().cancel(Status.CANCELLED.withDescription("first"));
    pair.clientStream().cancel(Status.CANCELLED.withDescription("second"));
    Closed closed = pair.clientListener().awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(closed.status().getDescription()).isEqualTo("first");
    pair.clientStream().writeMessage(message("after cancel"));
    pair.clientStream().flush();
    pair.clientStream().request(1);
    pair.clientStream().halfClose();
    pair.clientStream().cancel(Status.CANCELLED.withDescription("third"));
    assertThat(pair.serverListener().awaitClosed().getCode()).isEqualTo(Status.Code.CANCELLED);
    // The server may still act on its side; the calls are ignored.
    pair.serverStream().writeHeaders(new Metadata(), true);
    pair.serverStream().writeMessage(message("after cancel"));
    pair.serverStream().close(Status.OK, new Metadata());
    pair.serverStream().cancel(Status.CANCELLED);
    // Violations (a second closed, events after closed) are checked after the test.
  }

  @Test
  public void serverCancelReachesClient() {
    StreamPair pair = startStream();
    pair.serverStream().cancel(Status.DEADLINE_EXCEEDED.withDescription("server deadline"));
    Closed closed = pair.clientListener().awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(pair.serverListener().awaitClosed().isOk()).isFalse();
  }

  @Test
  public void clientCancelBeforeServerSeesMessagesDropsThem() {
    StreamPair pair = startStream();
    pair.clientStream().writeMessage(message("never read"));
    pair.clientStream().flush();
    pair.clientStream().cancel(Status.CANCELLED.withDescription("changed my mind"));
    assertThat(pair.clientListener().awaitStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(pair.serverListener().awaitClosed().getCode()).isEqualTo(Status.Code.CANCELLED);
    // Requesting after closed delivers nothing (checked as a violation after the test).
    pair.serverListener().request(pair.serverStream(), 1);
  }

  // ---------------------------------------------------------------- shutdown

  @Test
  public void shutdownLetsStreamInFlightFinishAndRefusesNewStreams() {
    StreamPair pair = startStream();
    client.shutdown(Status.UNAVAILABLE.withDescription("shutdown by the test"));
    assertThat(clientListener.awaitShutdown().getCode()).isEqualTo(Status.Code.UNAVAILABLE);

    ClientStream refused = client.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    RecordingClientStreamListener refusedListener = newClientStreamListener();
    refused.start(refusedListener);
    Closed closed = refusedListener.awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(closed.progress()).isEqualTo(RpcProgress.DROPPED);

    send(pair.clientStream(), pair.serverStream(), pair.serverListener(), "still here");
    pair.serverStream().writeHeaders(new Metadata(), true);
    send(pair.serverStream(), pair.clientStream(), pair.clientListener(), "me too");
    assertThat(clientListener.isTerminated()).as("terminated with a stream in flight").isFalse();
    finish(pair);

    clientListener.awaitTerminated();
    serverTransport().awaitTerminated();
    assertThat(serverTransport().streamsNotTaken()).as("refused stream reached server").isZero();
  }

  @Test
  public void shutdownNowCancelsStreamsInFlight() {
    StreamPair pair = startStream();
    client.shutdownNow(Status.UNAVAILABLE.withDescription("shutdownNow by the test"));
    Closed closed = pair.clientListener().awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(pair.serverListener().awaitClosed().isOk()).isFalse();
    clientListener.awaitShutdown();
    clientListener.awaitTerminated();
    serverTransport().awaitTerminated();
  }

  @Test
  public void serverTransportShutdownLetsStreamFinishAndRefusesNewStreams() {
    StreamPair pair = startStream();
    serverTransport().transport().shutdown();
    assertThat(clientListener.awaitShutdown().getCode()).isEqualTo(Status.Code.UNAVAILABLE);

    ClientStream refused = client.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    RecordingClientStreamListener refusedListener = newClientStreamListener();
    refused.start(refusedListener);
    assertThat(refusedListener.awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);

    send(pair.clientStream(), pair.serverStream(), pair.serverListener(), "still here");
    pair.serverStream().writeHeaders(new Metadata(), true);
    send(pair.serverStream(), pair.clientStream(), pair.clientListener(), "me too");
    finish(pair);

    serverTransport().awaitTerminated();
    clientListener.awaitTerminated();
    assertThat(serverTransport().streamsNotTaken()).as("refused stream reached server").isZero();
  }

  @Test
  public void serverTransportShutdownNowCancelsStreams() {
    StreamPair pair = startStream();
    serverTransport().transport().shutdownNow(Status.UNAVAILABLE.withDescription("server going"));
    assertThat(pair.clientListener().awaitStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(pair.serverListener().awaitClosed().isOk()).isFalse();
    serverTransport().awaitTerminated();
    clientListener.awaitShutdown();
    clientListener.awaitTerminated();
  }

  @Test
  public void transportServerShutdownKeepsExistingTransports() {
    serverTransport().awaitReady();
    server.shutdown();
    serverListener.awaitShutdown();
    StreamPair pair = startStream();
    send(pair.clientStream(), pair.serverStream(), pair.serverListener(), "still served");
    finish(pair);
  }

  @Test
  public void connectingAfterServerShutdownFailsUnavailable() {
    server.shutdown();
    serverListener.awaitShutdown();
    RecordingTransportListener lateListener = new RecordingTransportListener();
    startClient(lateListener);
    assertThat(lateListener.awaitShutdown().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    lateListener.awaitTerminated();
    assertThat(lateListener.isReady()).isFalse();
  }

  @Test
  public void serverTransportTerminatesWhenClientShutsDown() {
    serverTransport().awaitReady();
    client.shutdown(Status.UNAVAILABLE.withDescription("client leaving"));
    clientListener.awaitShutdown();
    clientListener.awaitTerminated();
    serverTransport().awaitTerminated();
  }

  // ---------------------------------------------------------------- ping

  @Test
  public void pingSucceedsOnTheGivenExecutor() {
    RecordingPingCallback callback = new RecordingPingCallback();
    client.ping(callback, callbackExecutor);
    RecordingPingCallback.Outcome outcome = callback.await();
    assertThat(outcome.failure()).isNull();
    assertThat(outcome.roundTripTimeNanos()).isNotNegative();
    assertThat(outcome.threadName()).startsWith("tern-test-callbacks");
    assertThat(callback.calledTwice()).isFalse();
  }

  @Test
  public void pingAfterShutdownFailsUnavailableOnTheGivenExecutor() {
    client.shutdown(Status.UNAVAILABLE.withDescription("no more pings"));
    RecordingPingCallback callback = new RecordingPingCallback();
    client.ping(callback, callbackExecutor);
    RecordingPingCallback.Outcome outcome = callback.await();
    assertThat(outcome.failure()).isNotNull();
    assertThat(outcome.failure().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(outcome.threadName()).startsWith("tern-test-callbacks");
  }

  @Test
  public void pingAfterTerminationFailsUnavailable() {
    client.shutdown(Status.UNAVAILABLE.withDescription("no more pings"));
    clientListener.awaitTerminated();
    RecordingPingCallback callback = new RecordingPingCallback();
    client.ping(callback, callbackExecutor);
    RecordingPingCallback.Outcome outcome = callback.await();
    assertThat(outcome.failure()).isNotNull();
    assertThat(outcome.failure().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(outcome.threadName()).startsWith("tern-test-callbacks");
  }

  // ---------------------------------------------------------------- in use

  @Test
  public void inUseFollowsTheStreamCount() {
    ClientStream notStarted = client.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    assertThat(notStarted).isNotNull();
    assertThat(clientListener.inUseHistory()).as("in use before any stream started").isEmpty();

    StreamPair first = startStream();
    assertThat(clientListener.awaitInUse()).isTrue();
    StreamPair second = startStream();
    finish(first);
    assertThat(clientListener.inUseHistory()).as("one stream still open").containsExactly(true);
    finish(second);
    assertThat(clientListener.awaitInUse()).isFalse();
    assertThat(clientListener.inUseHistory()).containsExactly(true, false);

    // A later stream makes it in use again.
    StreamPair third = startStream();
    assertThat(clientListener.awaitInUse()).isTrue();
    third.clientStream().cancel(Status.CANCELLED.withDescription("done"));
    assertThat(clientListener.awaitInUse()).isFalse();
    third.serverListener().awaitClosed();
  }

  // ---------------------------------------------------------------- size limits

  @Test
  public void oversizedRequestMessageFailsResourceExhaustedAndTransportGoesOn() {
    assumeTrue(sizesEnforcedByTransport(), "transport enforces sizes");
    serverTransport().setMaxInboundMessageSize(1000);
    StreamPair pair = startStream();
    pair.clientStream().writeMessage(message(new byte[1001]));
    pair.clientStream().flush();
    pair.serverListener().request(pair.serverStream(), 1);
    Closed closed = pair.clientListener().awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(pair.serverListener().awaitClosed().isOk()).isFalse();
    assertThat(pair.serverListener().messagesRead()).isZero();

    StreamPair next = startStream();
    next.clientStream().writeMessage(message(new byte[1000]));
    next.clientStream().flush();
    next.serverListener().request(next.serverStream(), 1);
    assertThat(next.serverListener().awaitMessage()).hasSize(1000);
    finish(next);
  }

  @Test
  public void oversizedResponseMessageFailsResourceExhaustedAndTransportGoesOn() {
    assumeTrue(sizesEnforcedByTransport(), "transport enforces sizes");
    ClientStream stream = client.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.setMaxInboundMessageSize(1000);
    RecordingClientStreamListener listener = newClientStreamListener();
    stream.start(listener);
    StreamCreated created = serverTransport().awaitStream();
    created.stream().writeHeaders(new Metadata(), false);
    created.stream().writeMessage(message(new byte[1001]));
    created.stream().flush();
    listener.request(stream, 1);
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(listener.messagesRead()).isZero();
    assertThat(created.listener().awaitClosed().isOk()).isFalse();

    StreamPair next = startStream();
    next.serverStream().writeHeaders(new Metadata(), false);
    send(next.serverStream(), next.clientStream(), next.clientListener(), "still fine");
    finish(next);
  }

  @Test
  public void oversizedOutboundMessageFailsResourceExhausted() {
    assumeTrue(sizesEnforcedByTransport(), "transport enforces sizes");
    ClientStream stream = client.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.setMaxInboundMessageSize(MAX_MESSAGE_SIZE);
    stream.setMaxOutboundMessageSize(1000);
    RecordingClientStreamListener listener = newClientStreamListener();
    stream.start(listener);
    StreamCreated created = serverTransport().awaitStream();
    created.listener().request(created.stream(), 1);
    stream.writeMessage(message(new byte[1001]));
    stream.flush();
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(created.listener().awaitClosed().isOk()).isFalse();
    assertThat(created.listener().messagesRead()).isZero();
  }

  @Test
  public void requestHeadersOverLimitFailResourceExhaustedBeforeReachingServer() {
    assumeTrue(sizesEnforcedByTransport(), "transport enforces sizes");
    serverTransport().awaitReady();
    Metadata headers = bigMetadata();
    headers.put(ID_KEY, "too big");
    ClientStream stream = client.newStream(METHOD, headers, CallOptions.DEFAULT);
    stream.setMaxInboundMessageSize(MAX_MESSAGE_SIZE);
    RecordingClientStreamListener listener = newClientStreamListener();
    stream.start(listener);
    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

    // The next stream the server sees is a later one: the big one never reached it.
    StreamPair next = startStream(withId("next"));
    assertThat(next.serverHeaders().get(ID_KEY)).isEqualTo("next");
    finish(next);
  }

  @Test
  public void responseHeadersOverLimitFailResourceExhausted() {
    assumeTrue(sizesEnforcedByTransport(), "transport enforces sizes");
    StreamPair pair = startStream();
    pair.serverStream().writeHeaders(bigMetadata(), true);
    assertThat(pair.clientListener().awaitStatus().getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(pair.clientListener().headersReceived()).isFalse();
    assertThat(pair.serverListener().awaitClosed().isOk()).isFalse();
  }

  @Test
  public void trailersOverLimitFailResourceExhausted() {
    assumeTrue(sizesEnforcedByTransport(), "transport enforces sizes");
    StreamPair pair = startStream();
    pair.serverStream().writeHeaders(new Metadata(), true);
    pair.clientListener().awaitHeaders();
    pair.serverStream().close(Status.OK, bigMetadata());
    Closed closed = pair.clientListener().awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(closed.trailers().get(ASCII_KEY)).isNull();
    pair.serverListener().awaitClosed();
  }
}
