package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.PROTOCOL_ERROR;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Requests whose pseudo-headers make them malformed (RFC 9113, section 8.3.1): each is reset with
 * RST_STREAM(PROTOCOL_ERROR), a stream error with no HTTP response, its call never reaches the
 * application, and a well-formed call on the same connection afterwards is served.
 */
class MalformedPseudoHeadersTest extends HostileServerBase {
  private static final String ECHO_PATH = "/tern.testing.Echo/Unary";
  private static final String UNKNOWN_PATH = "/tern.testing.Echo/Nope";

  @Test
  void duplicatePathDoesNotLetTheSecondValueWin() throws IOException {
    List<String[]> headers = grpcRequestHeaders(UNKNOWN_PATH);
    headers.add(3, new String[] {":path", ECHO_PATH});

    assertResetAndConnectionStillServes(headers);
  }

  @Test
  void duplicateMethodIsMalformed() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(1, new String[] {":method", "POST"});

    assertResetAndConnectionStillServes(headers);
  }

  @Test
  void duplicateSchemeIsMalformed() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(2, new String[] {":scheme", "https"});

    assertResetAndConnectionStillServes(headers);
  }

  @Test
  void duplicateAuthorityIsMalformed() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(4, new String[] {":authority", "example.com"});

    assertResetAndConnectionStillServes(headers);
  }

  @Test
  void missingPathIsMalformed() throws IOException {
    assertResetAndConnectionStillServes(without(":path"));
  }

  @Test
  void emptyPathIsMalformed() throws IOException {
    assertResetAndConnectionStillServes(with(":path", ""));
  }

  @Test
  void missingMethodIsMalformed() throws IOException {
    assertResetAndConnectionStillServes(without(":method"));
  }

  @Test
  void emptyMethodIsMalformed() throws IOException {
    assertResetAndConnectionStillServes(with(":method", ""));
  }

  @Test
  void missingSchemeIsMalformed() throws IOException {
    assertResetAndConnectionStillServes(without(":scheme"));
  }

  @Test
  void emptySchemeIsMalformed() throws IOException {
    assertResetAndConnectionStillServes(with(":scheme", ""));
  }

  @Test
  void pseudoHeaderAfterARegularHeaderIsMalformed() throws IOException {
    List<String[]> headers = without(":authority");
    headers.add(new String[] {":authority", "127.0.0.1"});

    assertResetAndConnectionStillServes(headers);
  }

  @Test
  void unknownPseudoHeaderIsMalformed() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(4, new String[] {":unknown", "x"});

    assertResetAndConnectionStillServes(headers);
  }

  @Test
  void statusPseudoHeaderInARequestIsMalformed() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(4, new String[] {":status", "200"});

    assertResetAndConnectionStillServes(headers);
  }

  @Test
  void statusAsTheOnlyPseudoHeaderIsMalformed() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.removeIf(header -> header[0].startsWith(":"));
    headers.add(0, new String[] {":status", "200"});

    assertResetAndConnectionStillServes(headers);
  }

  /**
   * Sends {@code headers} on stream 1 (ending it: no DATA follows, so what is tested is the reset
   * alone, not how DATA in flight for a reset stream is treated), expects
   * RST_STREAM(PROTOCOL_ERROR) on it and nothing else (no response HEADERS, no GOAWAY), then a
   * well-formed call on stream 3 of the same connection, which must be answered; only that call
   * reaches the application.
   */
  private void assertResetAndConnectionStillServes(List<String[]> headers) throws IOException {
    byte[] message = grpcMessage(0, "hi".getBytes(UTF_8));
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, true, headers);
      StreamEnd malformed = raw.awaitStreamEnd(1);

      assertThat(malformed.reset()).as("reset; frames %s", malformed.frames()).isTrue();
      assertThat(malformed.last().errorCode()).isEqualTo(PROTOCOL_ERROR);
      assertThat(malformed.frames())
          .as("no HTTP response and no GOAWAY")
          .noneMatch(frame -> frame.type() == HEADERS || frame.type() == GOAWAY);

      raw.writeHeaders(3, false, grpcRequestHeaders(ECHO_PATH));
      raw.writeData(3, true, message);
      StreamEnd next = raw.awaitStreamEnd(3);

      assertThat(next.headers())
          .as("frames %s", next.frames())
          .containsEntry(":status", "200")
          .containsEntry("grpc-status", "0");
      assertThat(next.data()).isEqualTo(message);
    }
    assertThat(callsStartedByTest()).as("calls that reached the application").isEqualTo(1);
    assertStillServingWellBehavedClient();
  }

  private static List<String[]> without(String name) {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.removeIf(header -> header[0].equals(name));
    return headers;
  }

  private static List<String[]> with(String name, String value) {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    for (String[] header : headers) {
      if (header[0].equals(name)) {
        header[1] = value;
      }
    }
    return headers;
  }
}
