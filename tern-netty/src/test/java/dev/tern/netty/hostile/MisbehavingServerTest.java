package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_ACK;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Status;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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

  private static List<String[]> headers(String... namesAndValues) {
    List<String[]> headers = new ArrayList<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      headers.add(new String[] {namesAndValues[i], namesAndValues[i + 1]});
    }
    return headers;
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
  void okHttpStatusWithoutGrpcStatusIsInternal() {
    Answer noStatus =
        (raw, id) ->
            raw.writeHeaders(
                id, true, headers(":status", "200", "content-type", "application/grpc"));

    assertThat(codeOf(UNARY, noStatus)).isEqualTo(Status.Code.INTERNAL);
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
