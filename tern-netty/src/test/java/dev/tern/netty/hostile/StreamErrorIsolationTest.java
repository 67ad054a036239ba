package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.DATA;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.PROTOCOL_ERROR;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.WINDOW_UPDATE;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A stream the server refuses or resets while the client is still sending on it: the frames the
 * client sent before it saw the reset are ignored (RFC 9113, section 5.1), never a connection
 * error, so a healthy call on another stream of the same connection completes.
 */
class StreamErrorIsolationTest extends HostileServerBase {
  private static final String ECHO_PATH = "/tern.testing.Echo/Unary";

  @Test
  void framesInFlightForAStreamRefusedWhileDecodingItsHeadersDoNotEndTheConnection()
      throws IOException {
    List<String[]> malformed = grpcRequestHeaders(ECHO_PATH);
    malformed.add(3, new String[] {":path", ECHO_PATH}); // duplicate :path

    List<Frame> frames =
        healthyCallBesideABadStream(
            raw -> {
              raw.writeHeaders(3, false, malformed);
              raw.writeData(3, false, grpcMessage(0, new byte[10_000]));
              raw.writeFrame(WINDOW_UPDATE, 0, 3, ByteBuffer.allocate(4).putInt(1000).array());
              raw.writeHeaders(3, true, List.<String[]>of(new String[] {"x-trailer", "late"}));
              raw.writeRstStream(3, RawHttp2Connection.CANCEL);
            });

    assertThat(frames)
        .as("RST_STREAM(PROTOCOL_ERROR) on the malformed stream")
        .anyMatch(
            frame ->
                frame.streamId() == 3
                    && frame.type() == RST_STREAM
                    && frame.errorCode() == PROTOCOL_ERROR);
    assertThat(callsStartedByTest()).as("calls that reached the application").isEqualTo(1);
    assertStillServingWellBehavedClient();
  }

  @Test
  void dataInFlightForAStreamAnsweredWithAnHttpErrorDoesNotEndTheConnection() throws IOException {
    List<String[]> get = grpcRequestHeaders(ECHO_PATH);
    get.get(0)[1] = "GET";

    List<Frame> frames =
        healthyCallBesideABadStream(
            raw -> {
              raw.writeHeaders(3, false, get);
              raw.writeData(3, false, grpcMessage(0, new byte[10_000]));
              raw.writeData(3, true, grpcMessage(0, new byte[10]));
            });

    assertThat(frames)
        .as("an HTTP 405 on stream 3")
        .anyMatch(
            frame ->
                frame.streamId() == 3
                    && frame.type() == HEADERS
                    && "405".equals(frame.headers().get(":status")));
    assertThat(callsStartedByTest()).as("calls that reached the application").isEqualTo(1);
    assertStillServingWellBehavedClient();
  }

  @Test
  void dataInFlightForAStreamWithAConnectionSpecificHeaderDoesNotEndTheConnection()
      throws IOException {
    // RFC 9113 8.2.2: "connection" makes the request malformed; Netty's HPACK decoder says so
    // while decoding, before the stream exists.
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(new String[] {"connection", "keep-alive"});

    List<Frame> frames =
        healthyCallBesideABadStream(
            raw -> {
              raw.writeHeaders(3, false, headers);
              raw.writeData(3, false, grpcMessage(0, new byte[10_000]));
              raw.writeData(3, true, grpcMessage(0, new byte[10]));
            });

    assertThat(frames)
        .as("RST_STREAM(PROTOCOL_ERROR) on stream 3")
        .anyMatch(
            frame ->
                frame.streamId() == 3
                    && frame.type() == RST_STREAM
                    && frame.errorCode() == PROTOCOL_ERROR);
    assertThat(callsStartedByTest()).as("calls that reached the application").isEqualTo(1);
    assertStillServingWellBehavedClient();
  }

  @Test
  void dataOnAStreamThePeerNeverOpenedIsStillAConnectionError() throws IOException {
    List<String[]> malformed = grpcRequestHeaders(ECHO_PATH);
    malformed.add(3, new String[] {":path", ECHO_PATH});
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(3, false, malformed);
      // Stream 5 is idle (RFC 9113 5.1.1): DATA on it cannot be in flight from before a reset.
      raw.writeData(5, false, grpcMessage(0, new byte[10]));
      List<Frame> frames = raw.awaitClose();

      assertThat(frames)
          .as("GOAWAY(PROTOCOL_ERROR); frames %s", frames)
          .anyMatch(frame -> frame.type() == GOAWAY && frame.errorCode() == PROTOCOL_ERROR);
    }
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  /** What a test sends on stream 3 of the raw connection. */
  private interface BadStream {
    void send(RawHttp2Connection raw) throws IOException;
  }

  /**
   * Opens a unary call on stream 1, sends {@code bad} on stream 3, then the call's message and
   * END_STREAM on stream 1, and expects that call to be answered OK with no GOAWAY. Returns every
   * frame read up to the end of stream 1; the caller then checks the rest of the server.
   */
  private List<Frame> healthyCallBesideABadStream(BadStream bad) throws IOException {
    byte[] message = grpcMessage(0, "still here".getBytes(UTF_8));
    List<Frame> frames = new ArrayList<>();
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, false, grpcRequestHeaders(ECHO_PATH));
      bad.send(raw);
      raw.writeData(1, true, message);

      List<Frame> stream1 = new ArrayList<>();
      for (Frame frame = raw.readFrame(); frame != null; frame = raw.readFrame()) {
        frames.add(frame);
        if (frame.streamId() == 1) {
          stream1.add(frame);
          if (frame.endStream() || frame.type() == RST_STREAM) {
            break;
          }
        }
      }

      assertThat(frames).as("no GOAWAY; frames %s", frames).noneMatch(f -> f.type() == GOAWAY);
      RawHttp2Connection.StreamEnd healthy =
          new RawHttp2Connection.StreamEnd(
              stream1, stream1.isEmpty() ? null : stream1.get(stream1.size() - 1));
      assertThat(healthy.headers())
          .as("stream 1; frames %s", frames)
          .containsEntry(":status", "200")
          .containsEntry("grpc-status", "0");
      assertThat(healthy.data()).isEqualTo(message);
      assertThat(healthy.frames()).anyMatch(frame -> frame.type() == DATA);
    }
    return frames;
  }
}
