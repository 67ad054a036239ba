package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.DATA;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.PROTOCOL_ERROR;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.STREAM_CLOSED;
import static dev.tern.netty.hostile.RawHttp2Connection.frame;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static dev.tern.netty.hostile.RawHttp2Connection.lastOfType;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import dev.tern.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * HEADERS frames on streams that can no longer take them (RFC 9113, sections 5.1 and 5.1.1), the
 * cases h2spec's {@code http2/5.1/6}, {@code http2/5.1/12} and {@code http2/5.1.1/2} check: each
 * gets the error the RFC requires, and a well-behaved client on its own connection is still served.
 */
class StreamStateViolationTest extends HostileServerBase {
  private static final String ECHO_PATH = "/tern.testing.Echo/Unary";
  private static final String HANG_PATH = "/" + HostileProbe.HANG.getFullMethodName();

  @Test
  void headersOnAHalfClosedRemoteStreamIsAStreamErrorStreamClosed() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      // A complete request the server holds unanswered: the stream is half-closed (remote).
      raw.writeHeaders(1, false, grpcRequestHeaders(HANG_PATH));
      raw.writeData(1, true, grpcMessage(0, "hang".getBytes(UTF_8)));
      Await.poll(probe.hangsStarted, "the call to reach the server");

      List<String[]> trailers = new ArrayList<>();
      trailers.add(new String[] {"x-late", "trailer"});
      raw.writeHeaders(1, true, trailers);
      Frame reset = raw.awaitFrame(RST_STREAM);

      // Section 5.1: frames other than WINDOW_UPDATE, PRIORITY or RST_STREAM on a half-closed
      // (remote) stream are a stream error of type STREAM_CLOSED.
      assertThat(reset).as("RST_STREAM").isNotNull();
      assertThat(reset.streamId()).isEqualTo(1);
      assertThat(reset.errorCode()).as("RST_STREAM %s", reset).isEqualTo(STREAM_CLOSED);
      assertServesOn(raw, 3);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void requestHeadersAgainOnAHalfClosedRemoteStreamIsAStreamErrorStreamClosed() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, grpcRequestHeaders(HANG_PATH));
      raw.writeData(1, true, grpcMessage(0, "hang".getBytes(UTF_8)));
      Await.poll(probe.hangsStarted, "the call to reach the server");

      // The request's headers again, pseudo-headers and all, as h2spec's http2/5.1/6 sends them:
      // the stream's state makes this a STREAM_CLOSED error whatever the block holds.
      raw.writeHeaders(1, true, grpcRequestHeaders(HANG_PATH));
      Frame reset = raw.awaitFrame(RST_STREAM);

      assertThat(reset).as("RST_STREAM").isNotNull();
      assertThat(reset.streamId()).isEqualTo(1);
      assertThat(reset.errorCode()).as("RST_STREAM %s", reset).isEqualTo(STREAM_CLOSED);
      assertServesOn(raw, 3);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void headersTwiceInOneReadAfterEndStreamIsAConnectionErrorStreamClosed() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      // h2spec's http2/5.1/6: a request ended on its HEADERS, then the same HEADERS again, both in
      // one write, so they arrive before the server's answer to the first is out.
      List<String[]> get = new ArrayList<>();
      get.add(new String[] {":method", "GET"});
      get.add(new String[] {":scheme", "http"});
      get.add(new String[] {":path", "/"});
      get.add(new String[] {":authority", "127.0.0.1"});
      byte[] headers = frame(HEADERS, FLAG_END_STREAM | FLAG_END_HEADERS, 1, headerBlock(get));
      ByteArrayOutputStream both = new ByteArrayOutputStream();
      both.writeBytes(headers);
      both.writeBytes(headers);
      raw.writeRaw(both.toByteArray());

      // Tern's engine answers the first request (405) within the read that brought it, so the
      // second block finds the stream closed after the client's END_STREAM: section 5.1 makes
      // that a connection error of type STREAM_CLOSED.
      Frame goAway = lastOfType(raw.awaitClose(), GOAWAY);
      assertThat(goAway).as("GOAWAY before closing").isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(STREAM_CLOSED);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void headersOnAStreamClosedByEndStreamIsAConnectionErrorStreamClosed() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      assertServesOn(raw, 1);

      raw.writeHeaders(1, true, grpcRequestHeaders(ECHO_PATH));
      Frame goAway = lastOfType(raw.awaitClose(), GOAWAY);

      // Section 5.1 (closed): any frame after END_STREAM was received is a connection error of
      // type STREAM_CLOSED.
      assertThat(goAway).as("GOAWAY before closing").isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(STREAM_CLOSED);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void newStreamWithAnIdBelowAnEarlierOneIsAConnectionProtocolError() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      assertServesOn(raw, 5);

      raw.writeHeaders(3, true, grpcRequestHeaders(ECHO_PATH));
      Frame goAway = lastOfType(raw.awaitClose(), GOAWAY);

      // Section 5.1.1: a new stream's id must exceed every id the client used before.
      assertThat(goAway).as("GOAWAY before closing").isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(PROTOCOL_ERROR);
    }
    assertThat(callsStartedByTest()).isEqualTo(1);
    assertStillServingWellBehavedClient();
  }

  @Test
  void lateFramesOnAStreamTheServerResetAreStillIgnored() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      // A request the server refuses with an HTTP error before the client has finished sending.
      List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
      headers.set(4, new String[] {"content-type", "text/plain"});
      raw.writeHeaders(1, false, headers);
      StreamEnd refused = raw.awaitStreamEnd(1);
      assertThat(refused.headers()).containsEntry(":status", "415");

      // The client finishes its half of the stream; nothing here is an error of either side.
      raw.writeData(1, true, "too late".getBytes(UTF_8));
      assertServesOn(raw, 3);
    }
    assertStillServingWellBehavedClient();
  }

  /** A unary call on {@code streamId} of {@code raw} succeeds. */
  private static void assertServesOn(RawHttp2Connection raw, int streamId) throws IOException {
    raw.writeHeaders(streamId, false, grpcRequestHeaders(ECHO_PATH));
    raw.writeData(streamId, true, grpcMessage(0, "ping".getBytes(UTF_8)));
    StreamEnd end = raw.awaitStreamEnd(streamId);
    assertThat(end.reset()).as("stream %d ended by %s", streamId, end.last()).isFalse();
    assertThat(end.headers()).as("stream %d", streamId).containsEntry("grpc-status", "0");
    assertThat(end.frames()).anyMatch(f -> f.type() == DATA);
    assertThat(end.last().type()).isEqualTo(HEADERS);
  }
}
