package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.COMPRESSION_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.ENHANCE_YOUR_CALM;
import static dev.tern.netty.internal.http2.Http2FrameException.FRAME_SIZE_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.NO_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.PROTOCOL_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.REFUSED_STREAM;
import static dev.tern.netty.internal.http2.Http2FrameException.SETTINGS_TIMEOUT;
import static dev.tern.netty.internal.http2.Http2FrameException.STREAM_CLOSED;
import static dev.tern.netty.internal.http2.Http2TestPeer.fields;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

/**
 * An {@link Http2Connection} driven with bytes, as a peer sends them in random chunks: the frames
 * it answers with, what it tells its listener, and each protocol error with its code and kind
 * (GOAWAY for the connection, RST_STREAM for a stream). Every buffer is released.
 */
class Http2ConnectionTest {
  static final String[] REQUEST = {
    ":method",
    "POST",
    ":scheme",
    "http",
    ":path",
    "/tern.Echo/Say",
    ":authority",
    "localhost",
    "content-type",
    "application/grpc",
    "te",
    "trailers"
  };
  static final String REQUEST_FIELDS =
      "{:method=POST, :scheme=http, :path=/tern.Echo/Say, :authority=localhost,"
          + " content-type=application/grpc, te=trailers}";

  private Http2TestPeer peer = Http2TestPeer.server();

  @AfterEach
  void everyBufferReleased() {
    peer.close();
  }

  private List<String> events() {
    return peer.events.lines;
  }

  private ByteBuf out() {
    return peer.alloc.buffer();
  }

  private static void assertGoAway(List<String> frames, long code, String reason) {
    assertThat(frames).isNotEmpty();
    assertThat(frames.get(frames.size() - 1)).startsWith("GOAWAY ").contains(" " + code + " ");
    assertThat(frames.get(frames.size() - 1)).contains(reason);
  }

  private void assertConnectionError(List<String> frames, long code, String reason) {
    assertGoAway(frames, code, reason);
    assertThat(events()).last().asString().startsWith("closed " + code + " ").contains(reason);
    assertThat(peer.connection.isClosed()).isTrue();
  }

  @Test
  void serverStartsWithItsSettingsAndAWindowUpdate() {
    ByteBuf out = out();
    peer.connection.start(out);
    assertThat(peer.read(out))
        .containsExactly(
            "SETTINGS Http2Settings{3=1000, 4=1048576, 6=8192}",
            "WINDOW_UPDATE 0 " + ((1 << 20) - 65_535));
    assertThat(peer.connection.awaitingSettingsAck()).isTrue();
  }

  @RepeatedTest(20)
  void unaryCallInRandomChunks(RepetitionInfo repetition) {
    peer.close();
    peer = new Http2TestPeer(true, Http2Limits.defaults(), repetition.getCurrentRepetition());
    List<String> handshake = peer.handshake();
    assertThat(handshake).contains("SETTINGS ACK");
    assertThat(peer.connection.awaitingSettingsAck()).isFalse();

    ByteBuf in = peer.headers(peer.frames(), 1, false, REQUEST);
    peer.data(in, 1, "hello", true);
    assertThat(peer.send(in)).isEmpty();
    assertThat(events()).containsExactly("headers 1 " + REQUEST_FIELDS, "data 1 hello flow=5 end");

    ByteBuf out = out();
    Http2Connection c = peer.connection;
    assertThat(c.sendHeaders(out, 1, fields(":status", "200"), false)).isTrue();
    assertThat(c.sendData(out, 1, peer.alloc.of(new byte[] {1, 2}, 0, 2), false)).isTrue();
    assertThat(c.sendHeaders(out, 1, fields("grpc-status", "0"), true)).isTrue();
    c.consumed(out, 1, 5);
    assertThat(peer.read(out))
        .containsExactly(
            "HEADERS 1 {:status=200}",
            "DATA 1 [0102] padding=0",
            "HEADERS 1 {grpc-status=0} END_STREAM");
    assertThat(c.activeStreams()).isZero();
    out = out();
    assertThat(c.sendHeaders(out, 1, fields("a", "b"), true)).as("stream closed").isFalse();
    assertThat(peer.read(out)).isEmpty();
  }

  @Test
  void notAPreface() {
    ByteBuf in = peer.frames();
    in.writeBytes(Http2TestPeer.bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    assertConnectionError(peer.send(in), PROTOCOL_ERROR, "not an HTTP/2 client preface (byte 0");
  }

  @Test
  void firstFrameMustBeSettings() {
    ByteBuf in = peer.frames();
    in.writeBytes(Http2Connection.PREFACE);
    peer.writer.writePing(in, 7, false);
    assertConnectionError(peer.send(in), PROTOCOL_ERROR, "first frame must be SETTINGS, not PING");
  }

  @Test
  void settingsAndPingsAreAnswered() {
    peer.handshake();
    ByteBuf in = peer.frames();
    peer.writer.writeSettings(
        in, new Http2Settings().set(Http2Settings.MAX_FRAME_SIZE, 20_000).set(0x99, 5));
    peer.writer.writePing(in, 0x1234, false);
    peer.writer.writePing(in, 0x99, true);
    assertThat(peer.send(in)).containsExactly("SETTINGS ACK", "PING 1234 ACK");
    assertThat(events()).containsExactly("settings Http2Settings{5=20000}", "ping ack 99");
  }

  @Test
  void settingsNotAcknowledgedInTime() {
    ByteBuf out = out();
    peer.connection.start(out);
    peer.read(out);
    out = out();
    peer.connection.settingsAckTimedOut(out);
    assertConnectionError(peer.read(out), SETTINGS_TIMEOUT, "SETTINGS not acknowledged in time");
  }

  @Test
  void clientMayNotOpenEvenStreams() {
    peer.handshake();
    assertConnectionError(
        peer.send(peer.headers(peer.frames(), 2, true, REQUEST)),
        PROTOCOL_ERROR,
        "a client may only open odd streams");
  }

  @Test
  void streamIdsMustIncrease() {
    peer.handshake();
    ByteBuf in = peer.headers(peer.frames(), 5, false, REQUEST);
    peer.headers(in, 3, false, REQUEST);
    List<String> frames = peer.send(in);
    assertConnectionError(frames, PROTOCOL_ERROR, "HEADERS on stream 3, not above the last stream");
    assertThat(frames.get(0))
        .isEqualTo("GOAWAY 5 1 HEADERS on stream 3, not above the last stream the peer opened");
    assertThat(events()).contains("reset 5 1 here");
  }

  @Test
  void framesOnIdleStreamsEndTheConnection() {
    for (String frame : new String[] {"DATA", "RST_STREAM", "WINDOW_UPDATE"}) {
      peer.close();
      peer = Http2TestPeer.server();
      peer.handshake();
      ByteBuf in = peer.frames();
      switch (frame) {
        case "DATA" -> peer.data(in, 1, "x", false);
        case "RST_STREAM" -> peer.writer.writeRstStream(in, 1, 8);
        default -> peer.writer.writeWindowUpdate(in, 1, 10);
      }
      assertConnectionError(peer.send(in), PROTOCOL_ERROR, frame + " on stream 1, which is idle");
    }
  }

  @Test
  void priorityOnAnIdleStreamIsAllowed() {
    peer.handshake();
    ByteBuf in = peer.frames();
    peer.writer.writePriority(in, 9, 1, false, 16);
    peer.headers(in, 1, true, REQUEST);
    assertThat(peer.send(in)).isEmpty();
    assertThat(events()).containsExactly("headers 1 " + REQUEST_FIELDS + " end");
  }

  @Test
  void halfClosedRemoteRefusesDataAndHeadersWithStreamClosed() {
    peer.handshake();
    ByteBuf in = peer.headers(peer.frames(), 1, true, REQUEST);
    peer.data(in, 1, "late", false);
    peer.headers(in, 3, true, REQUEST);
    peer.headers(in, 3, true, "x", "y");
    assertThat(peer.send(in))
        .containsExactly("RST_STREAM 1 " + STREAM_CLOSED, "RST_STREAM 3 " + STREAM_CLOSED);
    assertThat(events())
        .containsExactly(
            "headers 1 " + REQUEST_FIELDS + " end",
            "reset 1 5 here",
            "headers 3 " + REQUEST_FIELDS + " end",
            "reset 3 5 here");
    assertThat(peer.connection.activeStreams()).isZero();
    assertThat(peer.connection.isClosed()).isFalse();
  }

  @Test
  void closedStreamRefusesDataAsStreamErrorAndHeadersAsConnectionError() {
    peer.handshake();
    ByteBuf in = peer.headers(peer.frames(), 1, true, REQUEST);
    peer.headers(in, 3, true, REQUEST);
    peer.send(in);
    for (int id : new int[] {1, 3}) {
      ByteBuf out = out();
      peer.connection.sendHeaders(out, id, fields(":status", "200", "grpc-status", "0"), true);
      peer.read(out);
    }
    assertThat(peer.connection.activeStreams()).isZero();

    assertThat(peer.send(peer.data(peer.frames(), 1, "late", false)))
        .containsExactly("RST_STREAM 1 " + STREAM_CLOSED);
    assertConnectionError(
        peer.send(peer.headers(peer.frames(), 3, true, REQUEST)),
        STREAM_CLOSED,
        "HEADERS on stream 3, which is closed");
  }

  @Test
  void framesInFlightAfterALocalResetAreIgnored() {
    peer.handshake();
    peer.send(peer.headers(peer.frames(), 1, false, REQUEST));
    ByteBuf out = out();
    peer.connection.resetStream(out, 1, Http2FrameException.CANCEL);
    assertThat(peer.read(out)).containsExactly("RST_STREAM 1 8");

    ByteBuf in = peer.data(peer.frames(), 1, "in flight", false);
    peer.headers(in, 1, true, "grpc-status", "0");
    peer.writer.writeRstStream(in, 1, 8);
    peer.writer.writeWindowUpdate(in, 1, 100);
    assertThat(peer.send(in)).isEmpty();
    assertThat(events()).containsExactly("headers 1 " + REQUEST_FIELDS);
    assertThat(peer.connection.isClosed()).isFalse();
  }

  @Test
  void peerResetIsReportedAndLaterDataIsStreamClosed() {
    peer.handshake();
    ByteBuf in = peer.headers(peer.frames(), 1, false, REQUEST);
    peer.writer.writeRstStream(in, 1, 8);
    peer.data(in, 1, "after", false);
    assertThat(peer.send(in)).containsExactly("RST_STREAM 1 " + STREAM_CLOSED);
    assertThat(events()).containsExactly("headers 1 " + REQUEST_FIELDS, "reset 1 8 by peer");
    ByteBuf out = out();
    assertThat(peer.connection.sendData(out, 1, peer.alloc.buffer(), true)).isFalse();
    assertThat(peer.read(out)).isEmpty();
  }

  @Test
  void theStreamsSlotReachesEachOfItsEventsAndIsClearedAfterTheLast() {
    peer.handshake();
    ByteBuf in = peer.headers(peer.frames(), 1, false, REQUEST);
    peer.data(in, 1, "hello", false);
    peer.writer.writeRstStream(in, 1, 8);
    peer.headers(in, 3, false, REQUEST);
    peer.headers(in, 5, true, REQUEST);
    assertThat(peer.send(in)).isEmpty();
    ByteBuf out = out();
    peer.connection.goAway(out, ENHANCE_YOUR_CALM, "enough");
    peer.read(out);
    // A reset is heard before the close, with the slot; the connection's end resets each stream.
    assertThat(peer.events.slots)
        .containsExactlyInAnyOrder(
            "data 1 call 1",
            "reset 1 call 1",
            "closed 1 call 1",
            "reset 3 call 3",
            "closed 3 call 3",
            "reset 5 call 5",
            "closed 5 call 5");
    assertThat(peer.events.slots).startsWith("data 1 call 1", "reset 1 call 1", "closed 1 call 1");
    assertThat(peer.events.slots.indexOf("reset 5 call 5"))
        .isLessThan(peer.events.slots.indexOf("closed 5 call 5"));
    assertThat(peer.events.closed).extracting(Http2Stream::attachment).containsOnlyNulls();
  }

  @Test
  void streamsOverTheConcurrencyLimitAreRefusedAndHpackStaysInStep() {
    peer.close();
    Http2Limits d = Http2Limits.defaults();
    peer =
        new Http2TestPeer(
            true,
            limits(
                2,
                d.initialWindowSize(),
                d.maxQueuedBytesPerStream(),
                d.maxQueuedBytesPerConnection(),
                d.maxControlFramesWithoutWork(),
                d.maxResetsPerWindow()),
            7);
    peer.handshake();
    ByteBuf in = peer.headers(peer.frames(), 1, false, REQUEST);
    peer.headers(in, 3, false, REQUEST);
    peer.headers(in, 5, false, REQUEST);
    peer.data(in, 5, "refused", true);
    assertThat(peer.send(in)).containsExactly("RST_STREAM 5 " + REFUSED_STREAM);
    assertThat(events())
        .containsExactly("headers 1 " + REQUEST_FIELDS, "headers 3 " + REQUEST_FIELDS);

    ByteBuf out = out();
    peer.connection.resetStream(out, 1, Http2FrameException.CANCEL);
    peer.read(out);
    events().clear();
    assertThat(peer.send(peer.headers(peer.frames(), 7, true, REQUEST))).isEmpty();
    assertThat(events()).containsExactly("headers 7 " + REQUEST_FIELDS + " end");
  }

  @Test
  void trailersWithoutEndStreamAreAStreamError() {
    peer.handshake();
    ByteBuf in = peer.headers(peer.frames(), 1, false, REQUEST);
    peer.headers(in, 1, false, "x-trailer", "1");
    assertThat(peer.send(in)).containsExactly("RST_STREAM 1 " + PROTOCOL_ERROR);
    assertThat(events()).containsExactly("headers 1 " + REQUEST_FIELDS, "reset 1 1 here");
  }

  @Test
  void headersDependingOnTheirOwnStreamAreAStreamError() {
    peer.handshake();
    ByteBuf in = peer.frames();
    ByteBuf block = peer.block(REQUEST);
    Http2FrameWriter.writeFrameHeader(
        in, 5 + block.readableBytes(), Http2Frames.HEADERS, 0x4 | 0x20, 1);
    in.writeInt(1).writeByte(15).writeBytes(block);
    block.release();
    peer.headers(in, 3, true, REQUEST);
    assertThat(peer.send(in)).containsExactly("RST_STREAM 1 " + PROTOCOL_ERROR);
    assertThat(events()).containsExactly("headers 3 " + REQUEST_FIELDS + " end");
  }

  @Test
  void headerListOverTheLimitReachesTheListenerAsTooLarge() {
    peer.handshake();
    assertThat(peer.send(peer.headers(peer.frames(), 1, true, "big", "v".repeat(9000)))).isEmpty();
    assertThat(events()).containsExactly("too large 1 end");
    assertThat(peer.connection.activeStreams()).isEqualTo(1);
  }

  @Test
  void undecodableHeaderBlockIsACompressionError() {
    peer.handshake();
    ByteBuf in = peer.frames();
    ByteBuf block = peer.alloc.buffer().writeByte(0x80); // index 0
    peer.writer.writeHeaders(in, 1, block, true);
    block.release();
    assertConnectionError(peer.send(in), COMPRESSION_ERROR, "index 0");
  }

  @Test
  void frameReaderErrorsEndTheConnection() {
    peer.handshake();
    ByteBuf in = peer.frames();
    Http2FrameWriter.writeFrameHeader(in, 20_000, Http2Frames.DATA, 0, 1);
    in.writeZero(20_000);
    assertConnectionError(peer.send(in), FRAME_SIZE_ERROR, "over SETTINGS_MAX_FRAME_SIZE");
  }

  @Test
  void gracefulShutdownInTwoSteps() {
    peer.handshake();
    peer.send(peer.headers(peer.frames(), 1, true, REQUEST));
    ByteBuf out = out();
    peer.connection.shutdown(out);
    assertThat(peer.read(out))
        .containsExactly(
            "GOAWAY 2147483647 0 ", "PING " + Long.toHexString(Http2Connection.SHUTDOWN_PING));

    ByteBuf in = peer.headers(peer.frames(), 3, true, REQUEST);
    peer.writer.writePing(in, Http2Connection.SHUTDOWN_PING, true);
    peer.headers(in, 5, true, REQUEST);
    assertThat(peer.send(in))
        .as("stream 5, opened after the final GOAWAY, is refused")
        .containsExactly("GOAWAY 3 0 ", "RST_STREAM 5 " + REFUSED_STREAM);
    assertThat(events())
        .containsExactly(
            "headers 1 " + REQUEST_FIELDS + " end", "headers 3 " + REQUEST_FIELDS + " end");

    for (int id : new int[] {1, 3}) {
      out = out();
      peer.connection.sendHeaders(out, id, fields(":status", "200", "grpc-status", "0"), true);
      peer.read(out);
    }
    assertThat(events()).last().isEqualTo("closed " + NO_ERROR + " graceful shutdown complete");
    assertThat(peer.connection.isClosed()).isTrue();
  }

  @Test
  void pingFloodIsCalmedDown() {
    peer.close();
    peer = new Http2TestPeer(true, withFloodLimits(3, 200), 1);
    peer.handshake();
    ByteBuf in = peer.frames();
    for (int i = 0; i < 4; i++) {
      peer.writer.writePing(in, i, false);
    }
    List<String> frames = peer.send(in);
    assertThat(frames).startsWith("PING 0 ACK", "PING 1 ACK", "PING 2 ACK");
    assertConnectionError(frames, ENHANCE_YOUR_CALM, "more than 3 PING, SETTINGS and empty DATA");
  }

  @Test
  void requestsBetweenPingsResetTheCount() {
    peer.close();
    peer = new Http2TestPeer(true, withFloodLimits(2, 200), 1);
    peer.handshake();
    ByteBuf in = peer.frames();
    for (int id = 1; id <= 7; id += 2) {
      peer.writer.writePing(in, id, false);
      peer.writer.writeSettings(in, new Http2Settings());
      peer.headers(in, id, true, REQUEST);
    }
    assertThat(peer.send(in)).hasSize(8).doesNotContain("GOAWAY");
    assertThat(peer.connection.isClosed()).isFalse();
  }

  @Test
  void rapidResetIsCalmedDownWithinTheWindowOnly() {
    peer.close();
    peer = new Http2TestPeer(true, withFloodLimits(100, 3), 1);
    peer.handshake();
    ByteBuf in = peer.frames();
    for (int id = 1; id <= 5; id += 2) {
      peer.headers(in, id, false, REQUEST);
      peer.writer.writeRstStream(in, id, 8);
    }
    assertThat(peer.send(in)).isEmpty();
    peer.nanos[0] += Http2Limits.defaults().resetWindowNanos();
    in = peer.frames();
    for (int id = 7; id <= 13; id += 2) {
      peer.headers(in, id, false, REQUEST);
      peer.writer.writeRstStream(in, id, 8);
    }
    assertConnectionError(
        peer.send(in), ENHANCE_YOUR_CALM, "more than 3 stream resets in 30000 ms");
  }

  @Test
  void nothingInTheSameReadAfterTheStreamErrorThatEndsTheConnectionIsRead() {
    peer.close();
    peer = new Http2TestPeer(true, withFloodLimits(100, 3), 1);
    peer.handshake();
    ByteBuf in = peer.frames();
    for (int id = 1; id <= 7; id += 2) {
      peer.headers(in, id, true, REQUEST);
      peer.data(in, id, "late", false); // half-closed: a stream error, RST_STREAM, counted
    }
    peer.headers(in, 9, false, REQUEST);
    ByteBuf out = out();
    try {
      peer.connection.receive(in, out); // one read, as a socket delivers a flood
    } finally {
      in.release();
    }
    assertConnectionError(
        peer.read(out), ENHANCE_YOUR_CALM, "more than 3 stream resets in 30000 ms");
    assertThat(events()).noneMatch(event -> event.startsWith("headers 9"));
  }

  @Test
  void resetsOfStreamsThatGotDataAreNotARapidReset() {
    peer.close();
    peer = new Http2TestPeer(true, withFloodLimits(100, 3), 1);
    peer.handshake();
    Http2Connection c = peer.connection;
    for (int id = 1; id <= 11; id += 2) {
      assertThat(peer.send(peer.headers(peer.frames(), id, false, REQUEST))).isEmpty();
      ByteBuf out = out();
      c.sendHeaders(out, id, fields(":status", "200"), false);
      c.sendData(out, id, peer.alloc.of(new byte[] {7}, 0, 1), false);
      assertThat(peer.read(out)).hasSize(2);
      ByteBuf in = peer.frames();
      peer.writer.writeRstStream(in, id, 8);
      assertThat(peer.send(in)).as("stream %s cancelled after its answer", id).isEmpty();
    }
    assertThat(c.isClosed()).isFalse();
    assertThat(c.activeStreams()).isZero();
  }

  @Test
  void clientRefusesPushAndEvenStreams() {
    peer.close();
    peer = new Http2TestPeer(false, Http2Limits.defaults(), 3);
    peer.handshake();
    assertConnectionError(
        peer.send(peer.headers(peer.frames(), 2, true, ":status", "200")),
        PROTOCOL_ERROR,
        "a server opens no streams (push is refused)");
    peer.close();
    peer = new Http2TestPeer(false, Http2Limits.defaults(), 3);
    List<String> frames = peer.handshake(new Http2Settings().set(Http2Settings.ENABLE_PUSH, 1));
    assertGoAway(frames, PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH 1 from a server");
  }

  @Test
  void theLastStreamsResetIsHeardBeforeTheConnectionEndsAfterAGoAway() {
    // A server shutting down gracefully: GOAWAY first, then it refuses the stream it will not
    // serve. The listener must hear the refusal (safe to retry elsewhere) before the end of the
    // connection, which ends whatever is left as failed.
    peer.close();
    peer = new Http2TestPeer(false, Http2Limits.defaults(), 5);
    peer.handshake();
    ByteBuf out = out();
    assertThat(peer.connection.openStream(out, fields(REQUEST), true, null)).isEqualTo(1);
    assertThat(peer.read(out)).hasSize(1);

    ByteBuf in = peer.frames();
    ByteBuf debug = peer.alloc.buffer();
    peer.writer.writeGoAway(in, Integer.MAX_VALUE, NO_ERROR, debug);
    debug.release();
    peer.writer.writeRstStream(in, 1, REFUSED_STREAM);
    assertThat(peer.send(in)).isEmpty();
    assertThat(events())
        .containsExactly(
            "goaway 2147483647 0 ",
            "reset 1 " + REFUSED_STREAM + " by peer",
            "closed 0 graceful shutdown complete");
  }

  @Test
  void clientCallAndGoAwayRefusingNewerStreams() {
    peer.close();
    peer = new Http2TestPeer(false, Http2Limits.defaults(), 5);
    assertThat(peer.handshake())
        .startsWith("SETTINGS Http2Settings{2=0, 3=1000, 4=1048576, 6=8192}");
    Http2Connection c = peer.connection;
    ByteBuf out = out();
    assertThat(c.openStream(out, fields(REQUEST), true, null)).isEqualTo(1);
    assertThat(c.openStream(out, fields(REQUEST), true, null)).isEqualTo(3);
    assertThat(peer.read(out)).hasSize(2);

    ByteBuf in = peer.headers(peer.frames(), 1, false, ":status", "200");
    peer.data(in, 1, "hi", false);
    peer.headers(in, 1, true, "grpc-status", "0");
    ByteBuf debug = peer.alloc.buffer();
    peer.writer.writeGoAway(in, 1, NO_ERROR, debug);
    debug.release();
    assertThat(peer.send(in)).isEmpty();
    assertThat(events())
        .containsExactly(
            "headers 1 {:status=200}",
            "data 1 hi flow=2",
            "trailers 1 {grpc-status=0} end",
            "reset 3 7 by peer",
            "goaway 1 0 ",
            "closed 0 graceful shutdown complete");
    assertThat(c.canOpenStream()).isFalse();
    ByteBuf unused = out();
    assertThatThrownBy(() -> c.openStream(unused, fields(REQUEST), true, null))
        .isInstanceOf(IllegalStateException.class);
    assertThat(peer.read(unused)).isEmpty();
  }

  @Test
  void answersLongAfterThisSideResetTheirStreamsEndOnlyThoseStreams() {
    // A client whose calls pass their deadlines on an overloaded server resets stream after stream;
    // the server's answers to them arrive later, after the client has forgotten which streams it
    // reset. Those answers must not end the connection and every other call on it.
    peer.close();
    peer = new Http2TestPeer(false, Http2Limits.defaults(), 5);
    peer.handshake();
    Http2Connection c = peer.connection;
    int streams = Http2Streams.RECENT + 2;
    for (int i = 0; i < streams; i++) {
      ByteBuf out = out();
      int id = c.openStream(out, fields(REQUEST), true, null);
      c.resetStream(out, id, Http2FrameException.CANCEL);
      peer.read(out);
    }
    ByteBuf out = out();
    int live = c.openStream(out, fields(REQUEST), true, null);
    peer.read(out);
    int before = events().size();

    ByteBuf in = peer.headers(peer.frames(), 1, false, ":status", "200");
    peer.data(in, 1, "late", false);
    peer.headers(in, live, true, ":status", "200", "grpc-status", "0");
    // Refused once; the DATA after it is then ignored as in flight after a reset.
    assertThat(peer.send(in)).containsExactly("RST_STREAM 1 " + STREAM_CLOSED);
    assertThat(events().subList(before, events().size()))
        .containsExactly("headers " + live + " {:status=200, grpc-status=0} end");
    assertThat(c.isClosed()).isFalse();
  }

  @Test
  void lateAnswersOnForgottenResetStreams_doNotCountAsResetsThePeerCaused() {
    // bin/overload's streaming workload: a client cancelling thousands of calls a second at their
    // deadlines, each answered by several messages still in flight, forgets which streams it
    // reset. Refusing those late answers again is right; counting them as resets the server
    // caused closed the client's own connection (ENHANCE_YOUR_CALM) once past the limit, here 5.
    peer.close();
    peer = new Http2TestPeer(false, withFloodLimits(10_000, 5), 5);
    peer.handshake();
    Http2Connection c = peer.connection;
    int forgotten = 10;
    for (int i = 0; i < Http2Streams.RECENT + forgotten; i++) {
      ByteBuf out = out();
      int id = c.openStream(out, fields(REQUEST), true, null);
      c.resetStream(out, id, Http2FrameException.CANCEL);
      peer.read(out);
    }

    ByteBuf in = peer.frames();
    for (int i = 0; i < forgotten; i++) {
      peer.data(in, 1 + 2 * i, "late", false);
    }

    assertThat(peer.send(in)).hasSize(forgotten).allMatch(f -> f.endsWith(" " + STREAM_CLOSED));
    assertThat(c.isClosed()).isFalse();
  }

  @Test
  void serversDoNotOpenStreams() {
    peer.handshake();
    assertThat(peer.connection.canOpenStream()).isFalse();
    ByteBuf unused = out();
    assertThatThrownBy(() -> peer.connection.openStream(unused, fields(REQUEST), true, null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a server does not open streams");
    assertThat(peer.read(unused)).isEmpty();
  }

  /** The defaults, but for the limits the tests vary. */
  static Http2Limits limits(
      int maxConcurrentStreams,
      int initialWindowSize,
      long maxQueuedBytesPerStream,
      long maxQueuedBytesPerConnection,
      int maxControlFramesWithoutWork,
      int maxResetsPerWindow) {
    Http2Limits d = Http2Limits.defaults();
    return new Http2Limits(
        maxConcurrentStreams,
        initialWindowSize,
        d.connectionWindowSize(),
        d.maxFrameSize(),
        d.maxHeaderListSize(),
        d.maxHeaderBlockBytes(),
        maxQueuedBytesPerStream,
        maxQueuedBytesPerConnection,
        maxControlFramesWithoutWork,
        maxResetsPerWindow,
        d.resetWindowNanos(),
        d.maxContinuationFrames());
  }

  static Http2Limits withFloodLimits(int controlFrames, int resets) {
    Http2Limits d = Http2Limits.defaults();
    return limits(
        d.maxConcurrentStreams(),
        d.initialWindowSize(),
        d.maxQueuedBytesPerStream(),
        d.maxQueuedBytesPerConnection(),
        controlFrames,
        resets);
  }
}
