package dev.tern.netty.internal.client;

import static dev.tern.netty.testing.Http2Peer.grpcMessage;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.codec.WriteQueue;
import dev.tern.netty.testing.Http2Peer;
import dev.tern.netty.testing.Http2Peer.Headers;
import dev.tern.netty.testing.Http2Peer.RstStream;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.testing.RecordingClientStreamListener;
import dev.tern.testing.RecordingClientStreamListener.Closed;
import dev.tern.testing.RecordingTransportListener;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.AsciiString;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ClientHandler} alone on an {@link EmbeddedChannel}, its server played frame by frame by
 * the test ({@link Http2Peer}): the messages and the status each shape of response gives a call,
 * and what resets and GOAWAYs do to calls, as the gRPC protocol prescribes.
 */
class ClientHandlerTest {
  private static final String METHOD = "pkg.Greeter/SayHello";

  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private EmbeddedChannel channel;
  private NettyClientTransport transport;
  private ClientHandler handler;
  private WriteQueue writeQueue;
  private final RecordingTransportListener transportListener = new RecordingTransportListener();
  private Http2Peer server;

  @BeforeEach
  void connect() throws Exception {
    channel = new EmbeddedChannel();
    NettyClientTransport.TransportOptions options =
        new NettyClientTransport.TransportOptions(
            channel.eventLoop(), null, 1024 * 1024, 8192, 10_000);
    transport =
        new NettyClientTransport(
            new InetSocketAddress("127.0.0.1", 443), "example.com", "test/1.0", options);
    handler = ClientHandler.create(transport, transportListener, options);
    writeQueue = new WriteQueue(channel);
    channel.pipeline().addLast(handler);
    server = new Http2Peer(channel).ofClient();
    server.frames(); // the preface, the client's SETTINGS and connection window
    server.settings(new Http2Settings().maxConcurrentStreams(100));
    server.frames(); // the ack
    transportListener.awaitReady();
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
    assertThat(transportListener.violations()).isEmpty();
  }

  /** Starts a call, sends its one request message and half-closes; returns its listener. */
  private RecordingClientStreamListener startCall() {
    NettyClientStream stream =
        new NettyClientStream(
            transport,
            handler,
            writeQueue,
            new AsciiString("/" + METHOD),
            new AsciiString("example.com"),
            new Metadata());
    RecordingClientStreamListener listener = new RecordingClientStreamListener();
    stream.start(listener);
    listener.request(stream, 1);
    stream.writeMessage(new ByteArrayInputStream("ping".getBytes(StandardCharsets.UTF_8)));
    stream.flush();
    stream.halfClose();
    return listener;
  }

  /** The id of the stream whose request HEADERS the client wrote since the last read. */
  private int requestStreamId() throws Exception {
    List<Headers> requests = server.frames(Headers.class);
    assertThat(requests).hasSize(1);
    Http2Headers head = requests.get(0).headers();
    assertThat(head.path()).hasToString("/" + METHOD);
    assertThat(head.get("content-type")).hasToString("application/grpc");
    return requests.get(0).streamId();
  }

  private static Http2Headers responseHead() {
    return new DefaultHttp2Headers().status("200").add("content-type", "application/grpc");
  }

  @Test
  void headersDataAndTrailersGiveTheMessageAndTheStatus() throws Exception {
    RecordingClientStreamListener call = startCall();
    int id = requestStreamId();

    server.headers(id, responseHead().add("x-greeting", "hi"), false);
    server.data(id, grpcMessage("pong"), false);
    server.headers(id, new DefaultHttp2Headers().add("grpc-status", "0"), true);

    Metadata headers = call.awaitHeaders();
    assertThat(headers.get(Metadata.Key.of("x-greeting", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("hi");
    assertThat(new String(call.awaitMessage(), StandardCharsets.UTF_8)).isEqualTo("pong");
    Closed closed = call.awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(closed.progress()).isEqualTo(RpcProgress.PROCESSED);
    assertThat(call.violations()).isEmpty();
  }

  @Test
  void aTrailersOnlyResponseEndsTheCallWithItsStatusAndNoHeaders() throws Exception {
    RecordingClientStreamListener call = startCall();
    int id = requestStreamId();

    server.headers(
        id,
        responseHead()
            .add("grpc-status", "" + Status.Code.NOT_FOUND.value())
            .add("grpc-message", "no such greeting")
            .add("x-detail", "d"),
        true);

    Closed closed = call.awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(closed.status().getDescription()).isEqualTo("no such greeting");
    assertThat(closed.trailers().get(Metadata.Key.of("x-detail", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("d");
    assertThat(call.headersReceived()).isFalse();
    assertThat(call.messagesRead()).isZero();
  }

  @Test
  void refusedStreamIsUnavailableAndSafeToRetryTransparently() throws Exception {
    RecordingClientStreamListener call = startCall();
    int id = requestStreamId();

    server.rstStream(id, Http2Error.REFUSED_STREAM);

    Closed closed = call.awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(closed.status().getDescription())
        .isEqualTo("Received RST_STREAM with error code REFUSED_STREAM");
    assertThat(closed.progress()).isEqualTo(RpcProgress.REFUSED);
  }

  @ParameterizedTest(name = "RST_STREAM {0} -> {1}")
  @CsvSource({
    "CANCEL, CANCELLED",
    "ENHANCE_YOUR_CALM, RESOURCE_EXHAUSTED",
    "INADEQUATE_SECURITY, PERMISSION_DENIED",
    "PROTOCOL_ERROR, INTERNAL",
    "INTERNAL_ERROR, INTERNAL",
  })
  void resetStreamsEndWithTheStatusOfTheirErrorCode(Http2Error error, Status.Code expected)
      throws Exception {
    RecordingClientStreamListener call = startCall();
    int id = requestStreamId();

    server.rstStream(id, error);

    Closed closed = call.awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(expected);
    assertThat(closed.status().getDescription())
        .isEqualTo("Received RST_STREAM with error code " + error.name());
    assertThat(closed.progress()).isEqualTo(RpcProgress.PROCESSED);
  }

  @Test
  void goAwayFailsTheStreamsAboveItsLastStreamIdAndLetsTheOthersFinish() throws Exception {
    RecordingClientStreamListener kept = startCall();
    int keptId = requestStreamId();
    RecordingClientStreamListener refused = startCall();
    int refusedId = requestStreamId();
    assertThat(refusedId).isGreaterThan(keptId);

    server.goAway(keptId, Http2Error.NO_ERROR, "bye");

    Closed closed = refused.awaitClosed();
    assertThat(closed.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(closed.progress()).isEqualTo(RpcProgress.REFUSED);
    Status shutdown = transportListener.awaitShutdown();
    assertThat(shutdown.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(shutdown.getDescription()).isEqualTo("GOAWAY received: NO_ERROR, debug data: bye");
    assertThat(kept.isClosed()).isFalse();

    server.headers(keptId, responseHead(), false);
    server.data(keptId, grpcMessage("pong"), false);
    server.headers(keptId, new DefaultHttp2Headers().add("grpc-status", "0"), true);
    assertThat(new String(kept.awaitMessage(), StandardCharsets.UTF_8)).isEqualTo("pong");
    assertThat(kept.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    server.frames();
    // Nothing is left on the connection the server is closing: the client closes it.
    assertThat(channel.isOpen()).isFalse();
    transportListener.awaitTerminated();
  }

  @ParameterizedTest(name = "HTTP {0} -> {1}")
  @CsvSource({
    "400, INTERNAL",
    "401, UNAUTHENTICATED",
    "403, PERMISSION_DENIED",
    "404, UNIMPLEMENTED",
    "429, UNAVAILABLE",
    "502, UNAVAILABLE",
    "503, UNAVAILABLE",
    "504, UNAVAILABLE",
    "500, UNKNOWN",
  })
  void aResponseThatIsNotGrpcEndsTheCallByItsHttpStatus(int httpStatus, Status.Code expected)
      throws Exception {
    RecordingClientStreamListener call = startCall();
    int id = requestStreamId();

    server.headers(
        id,
        new DefaultHttp2Headers().status("" + httpStatus).add("content-type", "text/html"),
        false);

    Status status = call.awaitStatus();
    assertThat(status.getCode()).isEqualTo(expected);
    assertThat(status.getDescription()).isEqualTo("HTTP status code " + httpStatus);
    assertThat(call.headersReceived()).isFalse();
    // The client stops the response it will not read.
    assertThat(server.frames(RstStream.class))
        .containsExactly(new RstStream(id, Http2Error.CANCEL.code()));
  }

  @Test
  void aResponseWithoutAGrpcContentTypeIsUnknown() throws Exception {
    RecordingClientStreamListener call = startCall();
    int id = requestStreamId();

    server.headers(
        id, new DefaultHttp2Headers().status("200").add("content-type", "text/html"), false);

    Status status = call.awaitStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(status.getDescription())
        .isEqualTo("Invalid content-type in the response: text/html");
  }
}
