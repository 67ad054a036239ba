package dev.tern.web.internal;

import static dev.tern.web.internal.Frames.envelope;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.web.internal.Frames.Frame;
import dev.tern.web.test.EchoRequest;
import dev.tern.web.test.EchoResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** gRPC-Web against the real runtime, through a recording exchange. */
class GrpcWebProtocolTest {
  private static final String ECHO = "/tern.web.test.WebTest/Echo";
  private final GrpcWebProtocol protocol = new GrpcWebProtocol();
  private TestRuntime runtime;

  @BeforeEach
  void start() throws IOException {
    runtime = new TestRuntime(new WebTestService());
  }

  @AfterEach
  void stop() {
    runtime.close();
  }

  private static byte[] echo(String text) {
    return EchoRequest.newBuilder().setText(text).build().toByteArray();
  }

  private FakeExchange call(String path, String contentType, byte[] body) {
    FakeExchange exchange = runtime.serve(protocol, FakeRequest.post(path, contentType));
    exchange.sendByteByByte(body);
    return exchange.awaitEnd();
  }

  @Test
  void unaryBinary_fedByteByByte_answersMessageThenTrailers() throws Exception {
    FakeExchange exchange = call(ECHO, "application/grpc-web+proto", envelope(0, echo("hello")));

    assertThat(exchange.status()).isEqualTo(200);
    assertThat(exchange.header("content-type")).isEqualTo("application/grpc-web+proto");
    List<Frame> frames = Frames.parse(exchange.body());
    assertThat(frames).hasSize(2);
    assertThat(EchoResponse.parseFrom(frames.get(0).payload()).getText()).isEqualTo("hello");
    assertThat(frames.get(1).flags()).isEqualTo(0x80);
    assertThat(frames.get(1).text()).isEqualTo("grpc-status:0\r\n");
    assertThat(exchange.consumedBytes()).isEqualTo(exchange.received());
    assertThat(exchange.violations()).isEmpty();
  }

  @Test
  void text_requestOfSeveralPaddedChunks_eachResponseWriteDecodesAlone() throws Exception {
    byte[] frame = envelope(0, echo("text mode"));
    byte[] first = java.util.Arrays.copyOfRange(frame, 0, 4);
    byte[] rest = java.util.Arrays.copyOfRange(frame, 4, frame.length);
    byte[] body =
        (Base64.getEncoder().encodeToString(first) + Base64.getEncoder().encodeToString(rest))
            .getBytes(US_ASCII);

    FakeExchange exchange = call(ECHO, "application/grpc-web-text", body);

    assertThat(exchange.header("content-type")).isEqualTo("application/grpc-web-text");
    ByteArrayOutputStream decoded = new ByteArrayOutputStream();
    for (byte[] write : exchange.writes()) {
      decoded.writeBytes(Base64.getDecoder().decode(write));
    }
    List<Frame> frames = Frames.parse(decoded.toByteArray());
    assertThat(EchoResponse.parseFrom(frames.get(0).payload()).getText()).isEqualTo("text mode");
    assertThat(frames.get(1).text()).isEqualTo("grpc-status:0\r\n");
    assertThat(exchange.consumedBytes()).isEqualTo(exchange.received());
  }

  @Test
  void text_malformedBase64_endsInternalSayingSo() {
    FakeExchange exchange =
        call(ECHO, "application/grpc-web-text+proto", "AAAA!!!!".getBytes(US_ASCII));

    assertThat(exchange.header("grpc-status")).isEqualTo("13");
    assertThat(exchange.header("grpc-message")).contains("base64");
  }

  @Test
  void serverStreaming_sendsEachMessageThenTrailers() throws Exception {
    byte[] request = EchoRequest.newBuilder().setText("n").setCount(3).build().toByteArray();
    FakeExchange exchange =
        call("/tern.web.test.WebTest/Count", "application/grpc-web", envelope(0, request));

    List<Frame> frames = Frames.parse(exchange.body());
    assertThat(frames).hasSize(4);
    for (int i = 0; i < 3; i++) {
      assertThat(EchoResponse.parseFrom(frames.get(i).payload()).getText()).isEqualTo("n " + i);
    }
    assertThat(frames.get(3).text()).isEqualTo("grpc-status:0\r\n");
  }

  @Test
  void streamingError_afterMessages_trailersCarryStatusDetailsAndCustomTrailer() {
    byte[] request = EchoRequest.newBuilder().setText("fail").setCount(1).build().toByteArray();
    FakeExchange exchange =
        call("/tern.web.test.WebTest/Count", "application/grpc-web", envelope(0, request));

    List<Frame> frames = Frames.parse(exchange.body());
    assertThat(frames).hasSize(2);
    String trailers = frames.get(1).text();
    assertThat(trailers)
        .contains("grpc-status:5\r\n")
        .contains("grpc-message:no such thing\r\n")
        .contains("x-trailer:bye\r\n")
        .contains("grpc-status-details-bin:");
  }

  @Test
  void errorBeforeAnyMessage_isTrailersOnly() {
    FakeExchange exchange = call(ECHO, "application/grpc-web", envelope(0, echo("fail")));

    assertThat(exchange.status()).isEqualTo(200);
    assertThat(exchange.header("grpc-status")).isEqualTo("5");
    assertThat(exchange.header("grpc-message")).isEqualTo("no such thing");
    assertThat(exchange.header("x-trailer")).isEqualTo("bye");
    assertThat(exchange.header("grpc-status-details-bin")).isNotEmpty();
    assertThat(exchange.body()).isEmpty();
  }

  @Test
  void json_requestAndResponseInProto3Json_wellKnownTypesAndAny() {
    String json =
        "{\"text\":\"hi\",\"when\":\"2024-01-02T03:04:05Z\",\"extra\":{\"@type\":"
            + "\"type.googleapis.com/google.protobuf.Timestamp\",\"value\":\"1970-01-01T00:00:10Z\"}}";
    FakeExchange exchange =
        call(ECHO, "application/grpc-web+json", envelope(0, json.getBytes(UTF_8)));

    List<Frame> frames = Frames.parse(exchange.body());
    assertThat(frames.get(0).text()).isEqualTo(json);
    assertThat(frames.get(1).text()).isEqualTo("grpc-status:0\r\n");
  }

  @Test
  void gzipRequestMessage_isDecompressed() throws IOException {
    FakeExchange exchange =
        runtime.serve(
            protocol,
            FakeRequest.post(ECHO, "application/grpc-web").header("grpc-encoding", "gzip"));
    exchange.send(envelope(1, gzip(echo("zipped"))), true);
    exchange.awaitEnd();

    List<Frame> frames = Frames.parse(exchange.body());
    assertThat(EchoResponse.parseFrom(frames.get(0).payload()).getText()).isEqualTo("zipped");
  }

  @Test
  void unaryWithTwoRequestMessages_endsUnimplemented() {
    FakeExchange exchange =
        call(
            ECHO,
            "application/grpc-web",
            Frames.concat(envelope(0, echo("a")), envelope(0, echo("b"))));

    assertThat(trailerStatus(exchange)).isEqualTo("12");
  }

  @Test
  void unaryWithNoRequestMessage_endsUnimplemented() {
    FakeExchange exchange = call(ECHO, "application/grpc-web", new byte[0]);

    assertThat(trailerStatus(exchange)).isEqualTo("12");
  }

  @Test
  void truncatedEnvelope_endsInternal() {
    byte[] frame = envelope(0, echo("cut short"));
    FakeExchange exchange =
        call(ECHO, "application/grpc-web", java.util.Arrays.copyOf(frame, frame.length - 3));

    assertThat(exchange.header("grpc-status")).isEqualTo("13");
    assertThat(exchange.header("grpc-message")).contains("mid-frame");
  }

  @Test
  void messageOverTheLimit_endsResourceExhausted() throws IOException {
    runtime.close();
    runtime = new TestRuntime(new WebTestService(), 100);
    FakeExchange exchange = call(ECHO, "application/grpc-web", envelope(0, echo("x".repeat(200))));

    assertThat(exchange.header("grpc-status")).isEqualTo("8");
  }

  @Test
  void grpcTimeout_appliesTheDeadline() {
    FakeExchange exchange =
        runtime.serve(
            protocol, FakeRequest.post(ECHO, "application/grpc-web").header("grpc-timeout", "50m"));
    exchange.send(envelope(0, echo("wait")), true);
    exchange.awaitEnd();

    assertThat(exchange.header("grpc-status")).isEqualTo("4");
  }

  @Test
  void unknownMethod_endsUnimplemented() {
    FakeExchange exchange =
        call("/tern.web.test.WebTest/Nope", "application/grpc-web", envelope(0, echo("x")));

    assertThat(exchange.header("grpc-status")).isEqualTo("12");
  }

  @Test
  void clientGoingAway_midStream_releasesEverything() {
    FakeExchange exchange =
        runtime.serve(
            protocol, FakeRequest.post("/tern.web.test.WebTest/Chat", "application/grpc-web"));
    exchange.send(envelope(0, echo("one")), false);
    exchange.send(new byte[] {0, 0, 0}, false); // part of a prefix, then the client leaves
    exchange.clientAborts();

    assertThat(exchange.violations()).isEmpty();
  }

  @Test
  void handles_onlyGrpcWebPosts() {
    assertThat(protocol.handles(FakeRequest.post(ECHO, "application/grpc-web; charset=x")))
        .isTrue();
    assertThat(protocol.handles(FakeRequest.post(ECHO, "application/grpc"))).isFalse();
    assertThat(protocol.handles(FakeRequest.post(ECHO, "application/json"))).isFalse();
    assertThat(protocol.handles(FakeRequest.of("GET", ECHO))).isFalse();
    assertThat(
            protocol.handles(
                FakeRequest.of("OPTIONS", ECHO)
                    .header("origin", "http://a.test")
                    .header("access-control-request-method", "POST")))
        .isFalse();
  }

  private static String trailerStatus(FakeExchange exchange) {
    String header = exchange.header("grpc-status");
    if (header != null) {
      return header;
    }
    List<Frame> frames = Frames.parse(exchange.body());
    String trailers = frames.get(frames.size() - 1).text();
    return trailers.substring("grpc-status:".length(), trailers.indexOf("\r\n"));
  }

  static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    }
    return out.toByteArray();
  }
}
