package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_ACK;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.headers;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.stub.BlockingClientCall;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.Await;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Tern client against a hand-driven HTTP/2 server that answers with what the gRPC protocol says a
 * client must cope with, or must refuse: HTTP statuses without a gRPC status, stream resets,
 * unknown status codes, malformed escapes, unpadded base64, messages cut into single-byte frames.
 * Each call must end with the status the protocol assigns, never hang.
 */
class MisbehavingServerTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final MethodDescriptor<String, String> UNARY =
      method("fake.Server/Unary", MethodType.UNARY);
  private static final MethodDescriptor<String, String> STREAMING =
      method("fake.Server/Streaming", MethodType.SERVER_STREAMING);
  private static final MethodDescriptor<String, String> CLIENT_STREAMING =
      method("fake.Server/ClientStreaming", MethodType.CLIENT_STREAMING);

  private ServerSocket listener;
  private ManagedChannel channel;
  // Set by the test thread before each call, read by the serving threads after the request came.
  private volatile Answer answer;

  /** How the fake server answers one request, once the client has half-closed it. */
  private interface Answer {
    void respond(RawHttp2Connection raw, int streamId) throws IOException;
  }

  private static MethodDescriptor<String, String> method(String name, MethodType type) {
    return MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
        .setFullMethodName(name)
        .setType(type)
        .build();
  }

  @BeforeEach
  void listen() throws IOException {
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    ExecutorService serving = cleanup.register(Executors.newCachedThreadPool());
    serving.execute(
        () -> {
          while (!listener.isClosed()) {
            try {
              RawHttp2Connection raw = RawHttp2Connection.accept(listener);
              serving.execute(() -> serve(raw));
            } catch (IOException e) {
              return; // Closed at the end of the test.
            }
          }
        });
    channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", listener.getLocalPort())
                .usePlaintext()
                .build());
  }

  @AfterEach
  void close() throws IOException {
    listener.close();
  }

  /** Makes one call that the fake server answers with {@code answer}; returns how it ended. */
  private RecordingClientCallListener<String> call(
      MethodDescriptor<String, String> method, Answer answer) {
    this.answer = answer;
    ClientCall<String, String> call =
        channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(10);
    call.sendMessage("request");
    call.halfClose();
    listener.awaitClose();
    assertThat(listener.violations()).isEmpty();
    return listener;
  }

  /** Answers each request on {@code raw}, once the client half-closes it, until it closes. */
  private void serve(RawHttp2Connection raw) {
    try (raw) {
      for (Frame frame = raw.readFrame(); frame != null; frame = raw.readFrame()) {
        if (frame.endStream()) {
          answer.respond(raw, frame.streamId());
        }
      }
    } catch (IOException | AssertionError e) {
      // The client went away (or stayed idle until the read timed out): nothing left to serve.
    }
  }

  private static Answer httpStatusOnly(String status) {
    return (raw, id) -> raw.writeHeaders(id, true, headers(":status", status));
  }

  private static Answer reset(int errorCode) {
    return (raw, id) -> raw.writeRstStream(id, errorCode);
  }

  private Status.Code codeOf(MethodDescriptor<String, String> method, Answer answer) {
    return call(method, answer).awaitStatus().getCode();
  }

  @Test
  void httpStatusWithoutGrpcStatusMapsToAGrpcCode() {
    assertThat(codeOf(UNARY, httpStatusOnly("400"))).isEqualTo(Status.Code.INTERNAL);
    assertThat(codeOf(UNARY, httpStatusOnly("401"))).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(codeOf(UNARY, httpStatusOnly("403"))).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(codeOf(UNARY, httpStatusOnly("404"))).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(codeOf(UNARY, httpStatusOnly("429"))).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(codeOf(UNARY, httpStatusOnly("503"))).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(codeOf(UNARY, httpStatusOnly("418"))).isEqualTo(Status.Code.UNKNOWN);
  }

  @Test
  void okHttpStatusWithoutGrpcStatusIsUnknown() {
    // gRPC's HTTP-to-status mapping: "200 is UNKNOWN because there should be a grpc-status".
    Answer noStatus =
        (raw, id) ->
            raw.writeHeaders(
                id, true, headers(":status", "200", "content-type", "application/grpc"));

    Status status = call(UNARY, noStatus).awaitStatus();

    assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(status.getDescription())
        .isEqualTo("Missing grpc-status in the response (HTTP status 200)");
  }

  @Test
  void nonGrpcContentTypeIsUnknownInBothResponseShapes() {
    // What the Connect conformance suite's unexpected-content-type case sends: Trailers-Only.
    Answer trailersOnly =
        (raw, id) ->
            raw.writeHeaders(id, true, headers(":status", "200", "content-type", "image/jpeg"));
    Answer headersThenBody =
        (raw, id) -> {
          raw.writeHeaders(id, false, headers(":status", "200", "content-type", "image/jpeg"));
          raw.writeData(id, true, new byte[] {(byte) 0xff, (byte) 0xd8});
        };

    Status fromTrailersOnly = call(UNARY, trailersOnly).awaitStatus();
    Status fromHeaders = call(UNARY, headersThenBody).awaitStatus();

    assertThat(fromTrailersOnly.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(fromTrailersOnly.getDescription())
        .isEqualTo("Invalid content-type in the response: image/jpeg");
    assertThat(fromHeaders.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(fromHeaders.getDescription()).isEqualTo(fromTrailersOnly.getDescription());
  }

  /**
   * Every combination of HTTP status, content-type and grpc-status a Trailers-Only response (one
   * HEADERS frame with END_STREAM) can carry, and the status the call must end with: a gRPC
   * response's grpc-status, else gRPC's HTTP-to-status mapping (200 is UNKNOWN).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("trailersOnlyResponses")
  void trailersOnlyResponseEndsTheCallAsTheProtocolSays(
      String shape, List<String[]> response, Status.Code code, String description) {
    Status status = call(UNARY, (raw, id) -> raw.writeHeaders(id, true, response)).awaitStatus();

    assertThat(status.getCode()).as("status %s", status).isEqualTo(code);
    assertThat(status.getDescription()).isEqualTo(description);
  }

  static Stream<Arguments> trailersOnlyResponses() {
    return Stream.of(
        Arguments.of(
            "200 grpc with grpc-status",
            headers(
                ":status",
                "200",
                "content-type",
                "application/grpc",
                "grpc-status",
                "5",
                "grpc-message",
                "no such thing"),
            Status.Code.NOT_FOUND,
            "no such thing"),
        Arguments.of(
            "200 grpc+proto with grpc-status",
            headers(":status", "200", "content-type", "application/grpc+proto", "grpc-status", "9"),
            Status.Code.FAILED_PRECONDITION,
            null),
        Arguments.of(
            "200 grpc without grpc-status",
            headers(":status", "200", "content-type", "application/grpc"),
            Status.Code.UNKNOWN,
            "Missing grpc-status in the response (HTTP status 200)"),
        Arguments.of(
            "200 image/jpeg",
            headers(":status", "200", "content-type", "image/jpeg"),
            Status.Code.UNKNOWN,
            "Invalid content-type in the response: image/jpeg"),
        Arguments.of(
            "200 image/jpeg with grpc-status 0: not a gRPC response",
            headers(":status", "200", "content-type", "image/jpeg", "grpc-status", "0"),
            Status.Code.UNKNOWN,
            "Invalid content-type in the response: image/jpeg"),
        Arguments.of(
            "200 application/grpc-web: another protocol",
            headers(":status", "200", "content-type", "application/grpc-web", "grpc-status", "0"),
            Status.Code.UNKNOWN,
            "Invalid content-type in the response: application/grpc-web"),
        Arguments.of(
            "200 without content-type",
            headers(":status", "200"),
            Status.Code.UNKNOWN,
            "Response without content-type (HTTP status code 200)"),
        Arguments.of(
            "503 grpc with grpc-status: the gRPC status wins",
            headers(":status", "503", "content-type", "application/grpc", "grpc-status", "8"),
            Status.Code.RESOURCE_EXHAUSTED,
            null),
        Arguments.of(
            "503 text/html",
            headers(":status", "503", "content-type", "text/html"),
            Status.Code.UNAVAILABLE,
            "HTTP status code 503"),
        Arguments.of(
            "401 text/plain with grpc-status: not a gRPC response",
            headers(":status", "401", "content-type", "text/plain", "grpc-status", "0"),
            Status.Code.UNAUTHENTICATED,
            "HTTP status code 401"),
        Arguments.of(
            "404 grpc without grpc-status",
            headers(":status", "404", "content-type", "application/grpc"),
            Status.Code.UNIMPLEMENTED,
            "HTTP status code 404"),
        Arguments.of(
            "431 grpc without grpc-status (UNKNOWN: the Connect conformance suite's choice)",
            headers(":status", "431", "content-type", "application/grpc"),
            Status.Code.UNKNOWN,
            "HTTP status code 431"));
  }

  /** The same for a response whose headers come first, then trailers (or the end of the body). */
  @ParameterizedTest(name = "{0}")
  @MethodSource("headersThenTrailersResponses")
  void headersThenTrailersEndTheCallAsTheProtocolSays(
      String shape,
      List<String[]> head,
      List<String[]> trailers,
      Status.Code code,
      String description) {
    Answer answer =
        (raw, id) -> {
          raw.writeHeaders(id, false, head);
          raw.writeData(id, false, grpcMessage(0, "reply".getBytes(UTF_8)));
          raw.writeHeaders(id, true, trailers);
        };

    Status status = call(STREAMING, answer).awaitStatus();

    assertThat(status.getCode()).as("status %s", status).isEqualTo(code);
    assertThat(status.getDescription()).isEqualTo(description);
  }

  static Stream<Arguments> headersThenTrailersResponses() {
    List<String[]> grpcHead = headers(":status", "200", "content-type", "application/grpc");
    return Stream.of(
        Arguments.of(
            "grpc-status in the trailers",
            grpcHead,
            headers("grpc-status", "10", "grpc-message", "try again"),
            Status.Code.ABORTED,
            "try again"),
        Arguments.of(
            "trailers without grpc-status",
            grpcHead,
            headers("grpc-message", "error"),
            Status.Code.UNKNOWN,
            "Missing grpc-status in the response's trailers"),
        Arguments.of(
            "image/jpeg headers",
            headers(":status", "200", "content-type", "image/jpeg"),
            headers("grpc-status", "0"),
            Status.Code.UNKNOWN,
            "Invalid content-type in the response: image/jpeg"),
        Arguments.of(
            "headers without content-type",
            headers(":status", "200"),
            headers("grpc-status", "0"),
            Status.Code.UNKNOWN,
            "Response without content-type (HTTP status code 200)"),
        Arguments.of(
            "503 grpc headers",
            headers(":status", "503", "content-type", "application/grpc"),
            headers("grpc-status", "0"),
            Status.Code.UNAVAILABLE,
            "HTTP status code 503"));
  }

  @Test
  void informationalResponseBeforeTheRealOneIsSkipped() {
    Answer continueFirst =
        (raw, id) -> {
          raw.writeHeaders(id, false, headers(":status", "100"));
          raw.writeHeaders(
              id, false, headers(":status", "200", "content-type", "application/grpc"));
          raw.writeData(id, false, grpcMessage(0, "after 100".getBytes(UTF_8)));
          raw.writeHeaders(id, true, headers("grpc-status", "0"));
        };

    RecordingClientCallListener<String> listener = call(UNARY, continueFirst);

    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(listener.awaitMessage()).isEqualTo("after 100");
  }

  // ---- response cardinality, through the stubs (the Connect conformance suite's cases)

  private static Answer okWithResponses(int count) {
    return (raw, id) -> {
      raw.writeHeaders(id, false, headers(":status", "200", "content-type", "application/grpc"));
      for (int i = 0; i < count; i++) {
        raw.writeData(id, false, grpcMessage(0, ("reply " + i).getBytes(UTF_8)));
      }
      raw.writeHeaders(id, true, headers("grpc-status", "0"));
    };
  }

  @Test
  void unaryCallWithoutAResponseIsUnimplemented() {
    answer = okWithResponses(0);

    StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, "request"));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(e.getStatus().getDescription())
        .isEqualTo(
            "Server sent no response for a unary or client-streaming call, which needs exactly"
                + " one");
  }

  @Test
  void unaryCallWithTwoResponsesIsUnimplemented() throws Exception {
    answer = okWithResponses(2);

    CompletableFuture<String> future =
        ClientCalls.futureUnaryCall(channel.newCall(UNARY, CallOptions.DEFAULT), "request");

    ExecutionException e =
        catchThrowableOfType(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
    Status status = Status.fromThrowable(e.getCause());
    assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(status.getDescription())
        .isEqualTo(
            "Server sent more than one response for a unary or client-streaming call, which"
                + " needs exactly one");
  }

  @Test
  void clientStreamingCallWithZeroOrTwoResponsesIsUnimplemented() throws Exception {
    for (int count : new int[] {0, 2}) {
      answer = okWithResponses(count);
      BlockingClientCall<String, String> call =
          ClientCalls.blockingClientStreamingCall(
              channel,
              CLIENT_STREAMING,
              CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
      assertThat(call.write("one")).isTrue();
      assertThat(call.write("two")).isTrue();
      call.halfClose();

      StatusException e = catchThrowableOfType(StatusException.class, call::read);

      assertThat(e.getStatus().getCode())
          .as("%s responses", count)
          .isEqualTo(Status.Code.UNIMPLEMENTED);
      assertThat(e.getStatus().getDescription())
          .startsWith(
              count == 0 ? "Server sent no response" : "Server sent more than one response");
    }
  }

  @Test
  void streamResetsMapToGrpcCodes() {
    assertThat(codeOf(UNARY, reset(RawHttp2Connection.CANCEL))).isEqualTo(Status.Code.CANCELLED);
    assertThat(codeOf(UNARY, reset(RawHttp2Connection.ENHANCE_YOUR_CALM)))
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(codeOf(UNARY, reset(RawHttp2Connection.PROTOCOL_ERROR)))
        .isEqualTo(Status.Code.INTERNAL);
    // REFUSED_STREAM never reached the application: UNAVAILABLE, after any transparent retry.
    assertThat(codeOf(UNARY, reset(0x7))).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void statusCodeOutsideTheKnownRangeIsUnknown() {
    Answer code99 =
        (raw, id) ->
            raw.writeHeaders(
                id,
                true,
                headers(":status", "200", "content-type", "application/grpc", "grpc-status", "99"));

    assertThat(codeOf(UNARY, code99)).isEqualTo(Status.Code.UNKNOWN);
  }

  @Test
  void malformedPercentEscapesInGrpcMessagePassThrough() {
    Answer oddMessage =
        (raw, id) ->
            raw.writeHeaders(
                id,
                true,
                headers(
                    ":status", "200",
                    "content-type", "application/grpc",
                    "grpc-status", "3",
                    "grpc-message", "bad %zz escape, %4 and 100%; good %C3%A9"));

    Status status = call(UNARY, oddMessage).awaitStatus();

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo("bad %zz escape, %4 and 100%; good é");
  }

  @Test
  void binaryTrailersAcceptPaddedUnpaddedAndCommaJoinedBase64() {
    Answer binaryTrailers =
        (raw, id) -> {
          raw.writeHeaders(
              id, false, headers(":status", "200", "content-type", "application/grpc"));
          raw.writeData(id, false, grpcMessage(0, "reply".getBytes(UTF_8)));
          raw.writeHeaders(
              id,
              true,
              headers(
                  "grpc-status", "0",
                  "padded-bin", "AQ==",
                  "unpadded-bin", "AQ",
                  "joined-bin", "AQ==,AgM"));
        };

    RecordingClientCallListener<String> listener = call(UNARY, binaryTrailers);

    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    Metadata trailers = listener.awaitClose().trailers();
    assertThat(trailers.get(binary("padded-bin"))).containsExactly(1);
    assertThat(trailers.get(binary("unpadded-bin"))).containsExactly(1);
    assertThat(trailers.getAll(binary("joined-bin")))
        .containsExactly(new byte[] {1}, new byte[] {2, 3});
  }

  @Test
  void messageCutIntoOneByteDataFramesArrivesWhole() {
    Answer dribble =
        (raw, id) -> {
          raw.writeHeaders(
              id, false, headers(":status", "200", "content-type", "application/grpc"));
          for (byte b : grpcMessage(0, "dribbled".getBytes(UTF_8))) {
            raw.writeData(id, false, new byte[] {b});
          }
          raw.writeHeaders(id, true, headers("grpc-status", "0"));
        };

    RecordingClientCallListener<String> listener = call(UNARY, dribble);

    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(listener.awaitMessage()).isEqualTo("dribbled");
  }

  @Test
  void severalMessagesInOneDataFrameAllArrive() {
    Answer batched =
        (raw, id) -> {
          raw.writeHeaders(
              id, false, headers(":status", "200", "content-type", "application/grpc"));
          byte[] one = grpcMessage(0, "one".getBytes(UTF_8));
          byte[] two = grpcMessage(0, "two".getBytes(UTF_8));
          byte[] three = grpcMessage(0, "".getBytes(UTF_8));
          byte[] all = new byte[one.length + two.length + three.length];
          System.arraycopy(one, 0, all, 0, one.length);
          System.arraycopy(two, 0, all, one.length, two.length);
          System.arraycopy(three, 0, all, one.length + two.length, three.length);
          raw.writeData(id, false, all);
          raw.writeHeaders(id, true, headers("grpc-status", "0"));
        };

    RecordingClientCallListener<String> listener = call(STREAMING, batched);

    assertThat(listener.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(List.of(listener.awaitMessage(), listener.awaitMessage(), listener.awaitMessage()))
        .containsExactly("one", "two", "");
  }

  @Test
  void responseEndingInsideAMessageIsInternal() {
    Answer truncated =
        (raw, id) -> {
          raw.writeHeaders(
              id, false, headers(":status", "200", "content-type", "application/grpc"));
          raw.writeData(id, true, RawHttp2Connection.grpcPrefix(0, 50, new byte[10]));
        };

    Status status = call(UNARY, truncated).awaitStatus();

    assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void framesStillInFlightOnAStreamTheClientResetAreIgnored() throws Exception {
    CompletableFuture<List<Frame>> answeredAfterReset = new CompletableFuture<>();
    Answer tooLarge =
        (raw, id) -> {
          try {
            raw.writeHeaders(
                id, false, headers(":status", "200", "content-type", "application/grpc"));
            // Announces 5 MiB, over the client's 4 MiB limit: it fails the call and resets.
            raw.writeData(id, false, RawHttp2Connection.grpcPrefix(0, 5 << 20, new byte[10]));
            Frame frame = raw.readFrame();
            while (frame != null && !(frame.type() == RST_STREAM && frame.streamId() == id)) {
              frame = raw.readFrame();
            }
            assertThat(frame).as("the client's RST_STREAM").isNotNull();
            // More of the message, as if already on its way when the reset came: RFC 9113 5.1
            // says the client ignores it, rather than answering each frame with a reset.
            for (int i = 0; i < 8; i++) {
              raw.writeData(id, false, new byte[16 * 1024]);
            }
            raw.writePing(42);
            List<Frame> frames = new ArrayList<>();
            for (frame = raw.readFrame();
                frame != null && !(frame.type() == PING && (frame.flags() & FLAG_ACK) != 0);
                frame = raw.readFrame()) {
              frames.add(frame);
            }
            assertThat(frame).as("the PING's ACK after %s", frames).isNotNull();
            answeredAfterReset.complete(frames);
          } catch (IOException | RuntimeException | AssertionError e) {
            answeredAfterReset.completeExceptionally(e);
          }
        };

    Status status = call(UNARY, tooLarge).awaitStatus();

    assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(answeredAfterReset.get(Await.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
        .noneMatch(f -> f.type() == RST_STREAM || f.type() == GOAWAY);
  }

  @Test
  void connectionClosedMidResponseIsUnavailable() {
    Answer hangUp =
        (raw, id) -> {
          raw.writeHeaders(
              id, false, headers(":status", "200", "content-type", "application/grpc"));
          raw.close();
        };

    Status status = call(UNARY, hangUp).awaitStatus();

    assertThat(status.getCode()).as("status %s", status).isEqualTo(Status.Code.UNAVAILABLE);
  }

  private static Metadata.Key<byte[]> binary(String name) {
    return Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER);
  }
}
