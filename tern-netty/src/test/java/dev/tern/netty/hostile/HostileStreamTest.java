package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.STREAM_CLOSED;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcPrefix;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import dev.tern.testing.Await;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Requests that are wrong at the HTTP or gRPC level, sent over a raw HTTP/2 connection to a Tern
 * server: each must get the response the gRPC and HTTP/2 specifications call for (never a hang),
 * while a well-behaved Tern client goes on being served.
 */
class HostileStreamTest extends HostileServerBase {
  private static final String ECHO_PATH = "/tern.testing.Echo/Unary";

  @Test
  void wellFormedRawCallIsAnswered() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      for (int streamId = 1; streamId <= 3; streamId += 2) {
        raw.writeHeaders(streamId, false, grpcRequestHeaders(ECHO_PATH));
        raw.writeData(streamId, true, grpcMessage(0, "hello".getBytes(UTF_8)));
        StreamEnd end = raw.awaitStreamEnd(streamId);

        assertThat(end.headers())
            .as("frames %s", end.frames())
            .containsEntry(":status", "200")
            .containsEntry("grpc-status", "0");
        assertThat(end.headers().get("content-type")).startsWith("application/grpc");
        assertThat(end.data()).isEqualTo(grpcMessage(0, "hello".getBytes(UTF_8)));
      }
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void requestWithContentLengthIsServed() throws IOException {
    // Load generators and generic HTTP/2 clients (h2load, curl, nghttp) send content-length;
    // Netty's decoder normalizes it in place on the inbound headers.
    byte[] body = grpcMessage(0, "sized".getBytes(UTF_8));
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(new String[] {"content-length", Integer.toString(body.length)});
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, headers);
      raw.writeData(1, true, body);
      StreamEnd end = raw.awaitStreamEnd(1);

      assertThat(end.headers())
          .as("frames %s", end.frames())
          .containsEntry(":status", "200")
          .containsEntry("grpc-status", "0");
      assertThat(end.data()).isEqualTo(body);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void headerListOverTheLimitGets431OrResourceExhausted() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    // Over the default 8 KiB limit on the header list, well under any connection-fatal size.
    headers.add(new String[] {"oversized", "x".repeat(9000)});
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, headers);
      raw.writeData(1, true, grpcMessage(0, "hi".getBytes(UTF_8)));
      StreamEnd end = raw.awaitStreamEnd(1);

      Map<String, String> response = end.headers();
      assertThat("431".equals(response.get(":status")) || "8".equals(response.get("grpc-status")))
          .as("431 or grpc-status 8 (RESOURCE_EXHAUSTED) expected; frames: %s", end.frames())
          .isTrue();
      assertThat(callsStartedByTest()).as("calls that reached the application").isZero();
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void nonGrpcContentTypeGets415() throws IOException {
    List<String[]> headers = replace(grpcRequestHeaders(ECHO_PATH), "content-type", "text/plain");
    StreamEnd end = rawCall(headers, grpcMessage(0, "hi".getBytes(UTF_8)));

    assertThat(end.headers()).as("frames %s", end.frames()).containsEntry(":status", "415");
    assertNonOkGrpcStatus(end);
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  @Test
  void getGets405() throws IOException {
    List<String[]> headers = replace(grpcRequestHeaders(ECHO_PATH), ":method", "GET");
    StreamEnd end = rawCall(headers, new byte[0]);

    assertThat(end.headers()).as("frames %s", end.frames()).containsEntry(":status", "405");
    assertNonOkGrpcStatus(end);
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  @Test
  void unknownMethodGetsUnimplementedNamingIt() throws IOException {
    List<String[]> headers = grpcRequestHeaders("/tern.testing.Echo/Nope");
    StreamEnd end = rawCall(headers, grpcMessage(0, "hi".getBytes(UTF_8)));

    assertThat(end.headers())
        .as("frames %s", end.frames())
        .containsEntry(":status", "200")
        .containsEntry("grpc-status", "12");
    assertThat(end.headers().get("grpc-message")).contains("tern.testing.Echo/Nope");
    // Trailers-Only: one HEADERS frame, ending the stream, with the content-type.
    assertThat(end.frames()).as("frames").hasSize(1);
    assertThat(end.last().type()).isEqualTo(RawHttp2Connection.HEADERS);
    assertThat(end.last().endStream()).isTrue();
    assertThat(end.headers().get("content-type")).startsWith("application/grpc");
    assertStillServingWellBehavedClient();
  }

  @Test
  void uppercaseHeaderNameIsAMalformedRequest() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(new String[] {"X-Upper-Case", "v"});
    StreamEnd end = rawCall(headers, grpcMessage(0, "hi".getBytes(UTF_8)));

    // RFC 9113 8.2.1 and 8.1.1: malformed, so a stream error PROTOCOL_ERROR (or an HTTP 4xx).
    assertMalformed(end);
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  @Test
  void requestWithoutPathIsAMalformedRequest() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.removeIf(header -> header[0].equals(":path"));
    StreamEnd end = rawCall(headers, grpcMessage(0, "hi".getBytes(UTF_8)));

    assertMalformed(end);
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  @Test
  void messageAnnouncedOverTheLimitIsRefusedFromItsPrefixAlone() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, grpcRequestHeaders(ECHO_PATH));
      // Announces 100 MiB, sends ten bytes, and keeps the stream open: the server must not wait
      // for (or buffer) the rest before refusing.
      raw.writeData(1, false, grpcPrefix(0, 100 * 1024 * 1024, "ten bytes!".getBytes(UTF_8)));
      StreamEnd end = raw.awaitStreamEnd(1);

      assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "8");
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void framesStillInFlightOnAStreamTheServerResetAreIgnored() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, grpcRequestHeaders(ECHO_PATH));
      raw.writeData(1, false, grpcPrefix(0, 100 * 1024 * 1024, "ten bytes!".getBytes(UTF_8)));
      // The server refuses the message and resets the stream the client still has open.
      Frame reset = awaitResetOrGoAway(raw, 1);
      assertThat(reset).isNotNull();
      assertThat(reset.type()).as("%s", reset).isEqualTo(RST_STREAM);

      // More of the message, sent before the reset arrived as far as the server can tell: RFC
      // 9113 5.1 says the server ignores it (no RST_STREAM per frame). Its bytes still count
      // against the connection's window and are given back: 1.5 MiB, more than the 1 MiB window.
      byte[] chunk = new byte[16 * 1024];
      for (int i = 0; i < 96; i++) {
        raw.writeData(1, false, chunk);
      }
      raw.writeHeaders(3, false, grpcRequestHeaders(ECHO_PATH));
      raw.writeData(3, true, grpcMessage(0, "after".getBytes(UTF_8)));
      List<Frame> answers = new ArrayList<>();
      Frame frame;
      do {
        frame = raw.readFrame();
        assertThat(frame).as("connection closed; frames %s", answers).isNotNull();
        answers.add(frame);
      } while (frame.streamId() != 3 || !frame.endStream());

      assertThat(answers).noneMatch(f -> f.streamId() == 1 || f.type() == GOAWAY);
      assertThat(answers.get(answers.size() - 1).headers()).containsEntry("grpc-status", "0");
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void pathWithoutLeadingSlashGets404OrUnimplemented() throws IOException {
    List<String[]> headers = replace(grpcRequestHeaders(ECHO_PATH), ":path", "no-slash");
    StreamEnd end = rawCall(headers, grpcMessage(0, "hi".getBytes(UTF_8)));

    Map<String, String> response = end.headers();
    assertThat("404".equals(response.get(":status")) || "12".equals(response.get("grpc-status")))
        .as("404 or grpc-status 12 (UNIMPLEMENTED) expected; frames: %s", end.frames())
        .isTrue();
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  @Test
  void dataOnAClosedStreamIsAStreamClosedError() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, grpcRequestHeaders(ECHO_PATH));
      raw.writeData(1, true, grpcMessage(0, "first".getBytes(UTF_8)));
      assertThat(raw.awaitStreamEnd(1).headers()).containsEntry("grpc-status", "0");

      raw.writeData(1, false, grpcMessage(0, "late".getBytes(UTF_8)));
      Frame answer = awaitResetOrGoAway(raw, 1);

      // RFC 9113 5.1: a stream error (or connection error) of type STREAM_CLOSED.
      assertThat(answer).as("answer to DATA on a closed stream").isNotNull();
      assertThat(answer.errorCode()).as("error code of %s", answer).isEqualTo(STREAM_CLOSED);
      if (answer.type() == RST_STREAM) {
        // A stream error leaves the connection usable.
        raw.writeHeaders(3, false, grpcRequestHeaders(ECHO_PATH));
        raw.writeData(3, true, grpcMessage(0, "again".getBytes(UTF_8)));
        assertThat(raw.awaitStreamEnd(3).headers()).containsEntry("grpc-status", "0");
      }
    }
    assertThat(callsStartedByTest()).isBetween(1, 2);
    assertStillServingWellBehavedClient();
  }

  @Test
  void compressedFlagWithoutGrpcEncodingIsInternal() throws IOException {
    StreamEnd end =
        rawCall(grpcRequestHeaders(ECHO_PATH), grpcMessage(1, "not really gzip".getBytes(UTF_8)));

    assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "13");
    assertStillServingWellBehavedClient();
  }

  @Test
  void unsupportedGrpcEncodingIsUnimplementedListingWhatIsAccepted() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(new String[] {"grpc-encoding", "snappy"});
    StreamEnd end = rawCall(headers, grpcMessage(1, "pretend snappy".getBytes(UTF_8)));

    assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "12");
    assertThat(end.headers().get("grpc-accept-encoding")).contains("gzip");
    assertStillServingWellBehavedClient();
  }

  @Test
  void unknownCompressionFlagValueIsInternal() throws IOException {
    StreamEnd end = rawCall(grpcRequestHeaders(ECHO_PATH), grpcMessage(2, "hi".getBytes(UTF_8)));

    assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "13");
    assertStillServingWellBehavedClient();
  }

  @Test
  void streamEndingInsideAMessageIsInternal() throws IOException {
    // The prefix announces 100 bytes; the stream ends after 10.
    StreamEnd end =
        rawCall(grpcRequestHeaders(ECHO_PATH), grpcPrefix(0, 100, "ten bytes!".getBytes(UTF_8)));

    assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "13");
    assertStillServingWellBehavedClient();
  }

  @Test
  void streamEndingInsideAPrefixIsInternal() throws IOException {
    StreamEnd end = rawCall(grpcRequestHeaders(ECHO_PATH), new byte[] {0, 0, 0});

    assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "13");
    assertStillServingWellBehavedClient();
  }

  @Test
  void grpcTimeoutIsEnforcedByTheServerEvenIfTheClientDoesNot() throws IOException {
    List<String[]> headers = grpcRequestHeaders("/" + HostileProbe.HANG.getFullMethodName());
    headers.add(new String[] {"grpc-timeout", "200m"});
    StreamEnd end = rawCall(headers, grpcMessage(0, "wait".getBytes(UTF_8)));

    // DEADLINE_EXCEEDED in trailers, or (as grpc-java does) RST_STREAM(CANCEL) without them.
    boolean deadlineTrailers = "4".equals(end.headers().get("grpc-status"));
    boolean cancelReset = end.reset() && end.last().errorCode() == RawHttp2Connection.CANCEL;
    assertThat(deadlineTrailers || cancelReset)
        .as("grpc-status 4 or RST_STREAM(CANCEL) expected; frames %s", end.frames())
        .isTrue();
    assertThat(Await.poll(probe.hangsCancelled, "the handler to see the deadline cancel the call"))
        .isNotNull();
    assertStillServingWellBehavedClient();
  }

  @Test
  void malformedGrpcTimeoutIsRejectedNotIgnored() throws IOException {
    List<String[]> headers = grpcRequestHeaders("/" + HostileProbe.HANG.getFullMethodName());
    headers.add(new String[] {"grpc-timeout", "123456789S"}); // nine digits: at most eight
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, headers);
      raw.writeData(1, true, grpcMessage(0, "wait".getBytes(UTF_8)));
      StreamEnd end = raw.awaitStreamEnd(1);

      // A clear error, never a call that hangs on: the stream ends with a non-OK status or reset.
      assertThat(end.last()).as("frames %s", end.frames()).isNotNull();
      if (!end.reset()) {
        assertNonOkGrpcStatus(end);
      }
    }
    assertStillServingWellBehavedClient();
  }

  /** Opens a connection, sends one request on stream 1, and waits for the stream to end. */
  private StreamEnd rawCall(List<String[]> headers, byte[] body) throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, headers);
      raw.writeData(1, true, body);
      return raw.awaitStreamEnd(1);
    }
  }

  private static Frame awaitResetOrGoAway(RawHttp2Connection raw, int streamId) throws IOException {
    while (true) {
      Frame frame = raw.readFrame();
      if (frame == null
          || frame.type() == GOAWAY
          || (frame.type() == RST_STREAM && frame.streamId() == streamId)) {
        return frame;
      }
    }
  }

  private static void assertMalformed(StreamEnd end) {
    Frame last = end.last();
    boolean protocolError =
        last != null
            && (last.type() == RST_STREAM || last.type() == GOAWAY)
            && last.errorCode() == RawHttp2Connection.PROTOCOL_ERROR;
    // "A server MAY send an HTTP response prior to closing or resetting the stream": any 4xx.
    String httpStatus = end.headers().getOrDefault(":status", "");
    boolean refusedInHttp = httpStatus.startsWith("4") && end.last() != null;
    assertThat(protocolError || refusedInHttp)
        .as("RST_STREAM/GOAWAY(PROTOCOL_ERROR) or an HTTP 4xx expected; frames %s", end.frames())
        .isTrue();
  }

  private static void assertNonOkGrpcStatus(StreamEnd end) {
    assertThat(end.headers())
        .as("a gRPC status besides the HTTP one; frames %s", end.frames())
        .containsKey("grpc-status");
    assertThat(end.headers().get("grpc-status")).isNotEqualTo("0");
  }

  private static List<String[]> replace(List<String[]> headers, String name, String value) {
    for (String[] header : headers) {
      if (header[0].equals(name)) {
        header[1] = value;
      }
    }
    return headers;
  }
}
