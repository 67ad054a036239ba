package dev.tern.web.internal;

import static dev.tern.web.internal.Frames.envelope;
import static dev.tern.web.internal.GrpcWebProtocolTest.gzip;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.ErrorInfo;
import dev.tern.web.internal.Frames.Frame;
import dev.tern.web.test.EchoRequest;
import dev.tern.web.test.EchoResponse;
import java.io.IOException;
import java.net.URLEncoder;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Connect protocol against the real runtime, through a recording exchange. */
class ConnectProtocolTest {
  private static final String ECHO = "/tern.web.test.WebTest/Echo";
  private static final String COUNT = "/tern.web.test.WebTest/Count";
  private final ConnectProtocol protocol = new ConnectProtocol();
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

  private FakeExchange call(FakeRequest request, byte[] body) {
    FakeExchange exchange = runtime.serve(protocol, request);
    exchange.sendByteByByte(body);
    return exchange.awaitEnd();
  }

  @Test
  void unaryProto_answersTheMessageAsTheBody() throws Exception {
    FakeExchange exchange =
        call(
            FakeRequest.post(ECHO, "application/proto").header("connect-protocol-version", "1"),
            echo("hello"));

    assertThat(exchange.status()).isEqualTo(200);
    assertThat(exchange.header("content-type")).isEqualTo("application/proto");
    assertThat(EchoResponse.parseFrom(exchange.body()).getText()).isEqualTo("hello");
    assertThat(exchange.consumedBytes()).isEqualTo(exchange.received());
    assertThat(exchange.violations()).isEmpty();
  }

  @Test
  void unaryJson_fedByteByByte() {
    FakeExchange exchange =
        call(FakeRequest.post(ECHO, "application/json"), "{\"text\": \"hi\"}".getBytes(UTF_8));

    assertThat(exchange.status()).isEqualTo(200);
    assertThat(exchange.header("content-type")).isEqualTo("application/json");
    assertThat(exchange.text()).isEqualTo("{\"text\":\"hi\"}");
  }

  @Test
  void unaryError_jsonBodyWithHttpStatusDetailsAndTrailerHeaders() throws Exception {
    FakeExchange exchange = call(FakeRequest.post(ECHO, "application/proto"), echo("fail"));

    assertThat(exchange.status()).isEqualTo(404);
    assertThat(exchange.header("content-type")).isEqualTo("application/json");
    assertThat(exchange.header("trailer-x-trailer")).isEqualTo("bye");
    String body = exchange.text();
    assertThat(body)
        .startsWith("{\"code\":\"not_found\",\"message\":\"no such thing\",\"details\":[")
        .contains("\"type\":\"google.rpc.ErrorInfo\"");
    Matcher value = Pattern.compile("\"value\":\"([^\"]+)\"").matcher(body);
    assertThat(value.find()).isTrue();
    ErrorInfo info = ErrorInfo.parseFrom(Base64.getDecoder().decode(value.group(1)));
    assertThat(info.getReason()).isEqualTo("MISSING");
  }

  @Test
  void unaryJson_notMatchingTheMessage_isInvalidArgument() {
    FakeExchange exchange =
        call(FakeRequest.post(ECHO, "application/json"), "{\"count\": \"many\"}".getBytes(UTF_8));

    assertThat(exchange.status()).isEqualTo(400);
    assertThat(exchange.text())
        .startsWith("{\"code\":\"invalid_argument\"")
        .contains("tern.web.test.EchoRequest");
  }

  @Test
  void unaryJson_malformed_isInvalidArgument() {
    FakeExchange exchange =
        call(FakeRequest.post(ECHO, "application/json"), "{\"text\":".getBytes(UTF_8));

    assertThat(exchange.status()).isEqualTo(400);
    assertThat(exchange.text()).startsWith("{\"code\":\"invalid_argument\"");
  }

  @Test
  void get_jsonMessageInTheQuery() {
    String message = URLEncoder.encode("{\"text\":\"got\"}", UTF_8);
    FakeExchange exchange =
        call(
            FakeRequest.of("GET", ECHO + "?connect=v1&encoding=json&message=" + message),
            new byte[0]);

    assertThat(exchange.status()).isEqualTo(200);
    assertThat(exchange.text()).isEqualTo("{\"text\":\"got\"}");
  }

  @Test
  void get_base64ProtoMessage() throws Exception {
    String message = Base64.getUrlEncoder().withoutPadding().encodeToString(echo("b64"));
    FakeExchange exchange =
        call(
            FakeRequest.of("GET", ECHO + "?encoding=proto&base64=1&message=" + message),
            new byte[0]);

    assertThat(exchange.status()).isEqualTo(200);
    assertThat(EchoResponse.parseFrom(exchange.body()).getText()).isEqualTo("b64");
  }

  @Test
  void get_ofAMethodWithSideEffects_is405() {
    FakeExchange exchange =
        call(
            FakeRequest.of("GET", "/tern.web.test.WebTest/Store?encoding=json&message=%7B%7D"),
            new byte[0]);

    assertThat(exchange.status()).isEqualTo(405);
    assertThat(exchange.header("allow")).isEqualTo("POST");
    assertThat(exchange.text()).contains("side-effect free");
  }

  @Test
  void get_withoutEncoding_isInvalidArgument() {
    FakeExchange exchange = call(FakeRequest.of("GET", ECHO + "?connect=v1"), new byte[0]);

    assertThat(exchange.status()).isEqualTo(400);
    assertThat(exchange.text()).contains("encoding");
  }

  @Test
  void connectTimeout_becomesTheDeadline() {
    FakeExchange exchange =
        call(
            FakeRequest.post(ECHO, "application/proto").header("connect-timeout-ms", "50"),
            echo("wait"));

    assertThat(exchange.status()).isEqualTo(504);
    assertThat(exchange.text()).startsWith("{\"code\":\"deadline_exceeded\"");
  }

  @Test
  void invalidConnectTimeout_isInvalidArgument() {
    FakeExchange exchange =
        call(
            FakeRequest.post(ECHO, "application/proto").header("connect-timeout-ms", "soon"),
            echo("x"));

    assertThat(exchange.status()).isEqualTo(400);
    assertThat(exchange.text()).contains("connect-timeout-ms");
  }

  @Test
  void gzipRequestBody_isDecompressed() throws Exception {
    FakeExchange exchange =
        call(
            FakeRequest.post(ECHO, "application/proto").header("content-encoding", "gzip"),
            gzip(echo("zipped")));

    assertThat(exchange.status()).isEqualTo(200);
    assertThat(EchoResponse.parseFrom(exchange.body()).getText()).isEqualTo("zipped");
  }

  @Test
  void unknownContentEncoding_isUnimplemented() {
    FakeExchange exchange =
        call(
            FakeRequest.post(ECHO, "application/proto").header("content-encoding", "br"),
            echo("x"));

    assertThat(exchange.status()).isEqualTo(501);
    assertThat(exchange.header("accept-encoding")).contains("gzip");
  }

  @Test
  void bodyOverTheLimit_isResourceExhausted_withoutHoldingIt() throws IOException {
    runtime.close();
    runtime = new TestRuntime(new WebTestService(), 100);
    FakeExchange exchange =
        call(FakeRequest.post(ECHO, "application/proto"), echo("x".repeat(300)));

    assertThat(exchange.status()).isEqualTo(429);
    assertThat(exchange.text()).startsWith("{\"code\":\"resource_exhausted\"");
    assertThat(exchange.consumedBytes()).isEqualTo(exchange.received());
  }

  @Test
  void streaming_serverStream_messagesThenEndOfStream() throws Exception {
    byte[] request = EchoRequest.newBuilder().setText("n").setCount(2).build().toByteArray();
    FakeExchange exchange =
        call(FakeRequest.post(COUNT, "application/connect+proto"), envelope(0, request));

    assertThat(exchange.status()).isEqualTo(200);
    assertThat(exchange.header("content-type")).isEqualTo("application/connect+proto");
    List<Frame> frames = Frames.parse(exchange.body());
    assertThat(frames).hasSize(3);
    assertThat(EchoResponse.parseFrom(frames.get(1).payload()).getText()).isEqualTo("n 1");
    assertThat(frames.get(2).flags()).isEqualTo(2);
    assertThat(frames.get(2).text()).isEqualTo("{}");
  }

  @Test
  void streaming_error_inTheEndOfStreamWithMetadata_stillHttp200() {
    byte[] request = EchoRequest.newBuilder().setText("fail").setCount(1).build().toByteArray();
    FakeExchange exchange =
        call(
            FakeRequest.post(COUNT, "application/connect+json"),
            envelope(0, "{\"text\":\"fail\",\"count\":1}".getBytes(UTF_8)));

    assertThat(exchange.status()).isEqualTo(200);
    List<Frame> frames = Frames.parse(exchange.body());
    assertThat(frames.get(0).text()).isEqualTo("{\"text\":\"fail 0\"}");
    String end = frames.get(1).text();
    assertThat(frames.get(1).flags()).isEqualTo(2);
    assertThat(end)
        .startsWith("{\"error\":{\"code\":\"not_found\",\"message\":\"no such thing\"")
        .contains("google.rpc.ErrorInfo")
        .endsWith(",\"metadata\":{\"x-trailer\":[\"bye\"]}}");
    assertThat(request).isNotEmpty();
  }

  @Test
  void streaming_clientStream_joinsEveryMessage() throws Exception {
    FakeExchange exchange =
        call(
            FakeRequest.post("/tern.web.test.WebTest/Join", "application/connect+proto"),
            Frames.concat(
                envelope(0, echo("a")), envelope(1, gzip(echo("b"))), envelope(0, echo("c"))));

    // The compressed message needs an encoding: without connect-content-encoding it is an error.
    List<Frame> frames = Frames.parse(exchange.body());
    assertThat(frames.get(frames.size() - 1).text()).contains("\"code\":\"internal\"");

    FakeExchange zipped =
        runtime.serve(
            protocol,
            FakeRequest.post("/tern.web.test.WebTest/Join", "application/connect+proto")
                .header("connect-content-encoding", "gzip"));
    zipped.sendByteByByte(
        Frames.concat(
            envelope(0, echo("a")), envelope(1, gzip(echo("b"))), envelope(0, echo("c"))));
    zipped.awaitEnd();
    List<Frame> joined = Frames.parse(zipped.body());
    assertThat(EchoResponse.parseFrom(joined.get(0).payload()).getText()).isEqualTo("a,b,c");
    assertThat(joined.get(1).text()).isEqualTo("{}");
  }

  @Test
  void streaming_truncatedEnvelope_endsWithAnError() {
    byte[] frame = envelope(0, echo("cut"));
    FakeExchange exchange =
        call(
            FakeRequest.post(COUNT, "application/connect+proto"),
            java.util.Arrays.copyOf(frame, frame.length - 2));

    assertThat(exchange.status()).isEqualTo(200);
    List<Frame> frames = Frames.parse(exchange.body());
    assertThat(frames.get(0).flags()).isEqualTo(2);
    assertThat(frames.get(0).text()).contains("\"code\":\"internal\"").contains("mid-frame");
  }

  @Test
  void unaryContentTypeForAStreamingMethod_is415SayingWhatToUse() {
    FakeExchange exchange = call(FakeRequest.post(COUNT, "application/proto"), echo("x"));

    assertThat(exchange.status()).isEqualTo(415);
    assertThat(exchange.text()).contains("server-streaming").contains("application/connect+proto");
  }

  @Test
  void streamingContentTypeForAUnaryMethod_is415() {
    FakeExchange exchange =
        call(FakeRequest.post(ECHO, "application/connect+proto"), envelope(0, echo("x")));

    assertThat(exchange.status()).isEqualTo(415);
    assertThat(exchange.text()).contains("unary").contains("application/proto");
  }

  @Test
  void unknownProtocolVersion_isInvalidArgument() {
    FakeExchange exchange =
        call(
            FakeRequest.post(ECHO, "application/proto").header("connect-protocol-version", "2"),
            echo("x"));

    assertThat(exchange.status()).isEqualTo(400);
    assertThat(exchange.text()).contains("connect-protocol-version");
  }

  @Test
  void unknownMethod_is404Unimplemented() {
    FakeExchange exchange =
        call(
            FakeRequest.post("/tern.web.test.WebTest/Nope", "application/json"),
            "{}".getBytes(UTF_8));

    // As a Connect server's router answers a path it does not serve; clients read it as
    // unimplemented, which the body says too.
    assertThat(exchange.status()).isEqualTo(404);
    assertThat(exchange.text())
        .startsWith(
            "{\"code\":\"unimplemented\",\"message\":\"Method not found: tern.web.test.WebTest/Nope\"");
  }

  @Test
  void handles_connectRequestsOnly() {
    assertThat(protocol.handles(FakeRequest.post(ECHO, "application/json; charset=utf-8")))
        .isTrue();
    assertThat(protocol.handles(FakeRequest.post(ECHO, "application/connect+proto"))).isTrue();
    assertThat(protocol.handles(FakeRequest.post(ECHO, "application/grpc-web"))).isFalse();
    assertThat(protocol.handles(FakeRequest.post(ECHO, "text/plain"))).isFalse();
    assertThat(protocol.handles(FakeRequest.of("GET", ECHO + "?encoding=json"))).isTrue();
    assertThat(protocol.handles(FakeRequest.of("GET", "/index.html"))).isFalse();
  }

  @Test
  void timeoutConversion() {
    assertThat(ConnectProtocol.grpcTimeout("1500")).isEqualTo("1500000u");
    assertThat(ConnectProtocol.grpcTimeout("9999999999")).isEqualTo("9999999S");
    assertThat(ConnectProtocol.grpcTimeout("12345678901")).isNull();
    assertThat(ConnectProtocol.grpcTimeout("-1")).isNull();
  }
}
