package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2ConnectionTest.REQUEST;
import static dev.tern.netty.internal.http2.Http2FrameException.ENHANCE_YOUR_CALM;
import static dev.tern.netty.internal.http2.Http2FrameException.FLOW_CONTROL_ERROR;
import static dev.tern.netty.internal.http2.Http2TestPeer.fields;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Flow control (RFC 9113 section 6.9) of an {@link Http2Connection}, at the byte level: receive
 * windows and their batched WINDOW_UPDATEs, padding counted, DATA beyond a window, send windows,
 * queues waiting for credit, SETTINGS_INITIAL_WINDOW_SIZE changes and window overflow.
 */
class Http2FlowControlTest {
  private Http2TestPeer peer;

  @AfterEach
  void everyBufferReleased() {
    peer.close();
  }

  private static Http2Limits limits(
      int initialWindow, long queuePerStream, long queuePerConnection) {
    Http2Limits d = Http2Limits.defaults();
    return Http2ConnectionTest.limits(
        d.maxConcurrentStreams(),
        initialWindow,
        queuePerStream,
        queuePerConnection,
        d.maxControlFramesWithoutWork(),
        d.maxResetsPerWindow());
  }

  private void serverWithRequest(Http2Limits limits) {
    peer = new Http2TestPeer(true, limits, 11);
    peer.handshake();
    peer.send(peer.headers(peer.frames(), 1, false, REQUEST));
    peer.events.lines.clear();
  }

  private ByteBuf bytes(int n) {
    return peer.alloc.buffer(n).writeZero(n);
  }

  private ByteBuf out() {
    return peer.alloc.buffer();
  }

  @Test
  void windowUpdatesAreBatchedAtHalfTheWindow() {
    serverWithRequest(limits(1000, 1 << 20, 1 << 20));
    ByteBuf in = peer.frames();
    peer.data(in, 1, "x".repeat(400), false);
    peer.data(in, 1, "y".repeat(400), false);
    peer.send(in);

    ByteBuf out = out();
    peer.connection.consumed(out, 1, 400);
    assertThat(peer.read(out)).as("400 < 500, half the stream window").isEmpty();
    out = out();
    peer.connection.consumed(out, 1, 400);
    assertThat(peer.read(out)).containsExactly("WINDOW_UPDATE 1 800");
  }

  @Test
  void paddingCountsAgainstTheWindowAndDataBeyondItIsAStreamError() {
    serverWithRequest(limits(100, 1 << 20, 1 << 20));
    ByteBuf in = peer.frames();
    Http2FrameWriter.writeFrameHeader(in, 1 + 50 + 30, Http2Frames.DATA, 0x8, 1);
    in.writeByte(30).writeZero(50).writeZero(30);
    Http2FrameWriter.writeFrameHeader(in, 20, Http2Frames.DATA, 0, 1);
    in.writeZero(20);
    List<String> frames = peer.send(in);
    assertThat(peer.events.lines.get(0)).endsWith(" flow=81");
    assertThat(frames).containsExactly("RST_STREAM 1 " + FLOW_CONTROL_ERROR);
    assertThat(peer.events.lines).last().isEqualTo("reset 1 3 here");
    assertThat(peer.connection.isClosed()).isFalse();
  }

  @Test
  void dataBeyondTheConnectionWindowEndsTheConnection() {
    serverWithRequest(Http2Limits.defaults());
    ByteBuf in = peer.frames();
    ByteBuf body = bytes((1 << 20) + 1);
    peer.writer.writeData(in, 1, body, false);
    body.release();
    List<String> frames = peer.send(in);
    assertThat(frames).last().asString().startsWith("GOAWAY 1 3 ").contains("on the connection");
    assertThat(peer.connection.isClosed()).isTrue();
  }

  @Test
  void dataForAStreamResetHereStillReturnsConnectionCredit() {
    serverWithRequest(Http2Limits.defaults());
    ByteBuf out = out();
    peer.connection.resetStream(out, 1, Http2FrameException.CANCEL);
    peer.read(out);
    ByteBuf in = peer.frames();
    ByteBuf body = bytes(16_384);
    for (int i = 0; i < 40; i++) {
      peer.writer.writeData(in, 1, body.duplicate(), false);
    }
    body.release();
    List<String> frames = peer.send(in);
    assertThat(frames).contains("WINDOW_UPDATE 0 524288").doesNotContain("GOAWAY");
  }

  /** 40 DATA frames of 16 KiB on stream 1, 640 KiB in all: past half the connection's window. */
  private void send640KiB(boolean endStream) {
    ByteBuf in = peer.frames();
    ByteBuf body = bytes(16_384);
    for (int i = 0; i < 40; i++) {
      peer.writer.writeData(in, 1, body.duplicate(), endStream && i == 39);
    }
    body.release();
    assertThat(peer.send(in)).as("nothing consumed, nothing given back").isEmpty();
  }

  @Test
  void dataAResetStreamDidNotConsumeGoesBackToTheConnection() {
    serverWithRequest(Http2Limits.defaults());
    send640KiB(false);
    ByteBuf in = peer.frames();
    peer.writer.writeRstStream(in, 1, Http2FrameException.CANCEL);
    assertThat(peer.send(in)).containsExactly("WINDOW_UPDATE 0 655360");

    ByteBuf out = out();
    peer.connection.consumed(out, 1, 655_360);
    assertThat(peer.read(out)).as("given back once, not again by its reader").isEmpty();
  }

  @Test
  void dataAStreamDidNotConsumeGoesBackToTheConnectionWhenItsResponseEndsIt() {
    serverWithRequest(Http2Limits.defaults());
    send640KiB(true); // the request ends; its reader stopped at an oversized message
    ByteBuf out = out();
    peer.connection.sendHeaders(out, 1, fields(":status", "200", "grpc-status", "8"), true);
    assertThat(peer.read(out))
        .containsExactly(
            "HEADERS 1 {:status=200, grpc-status=8} END_STREAM", "WINDOW_UPDATE 0 655360");
  }

  @Test
  void sendingWaitsForBothWindowsAndTrailersWaitBehindData() {
    serverWithRequest(Http2Limits.defaults());
    Http2Connection c = peer.connection;
    ByteBuf out = out();
    c.sendHeaders(out, 1, fields(":status", "200"), false);
    c.sendData(out, 1, bytes(100_000), false);
    c.sendHeaders(out, 1, fields("grpc-status", "0"), true);
    assertThat(peer.read(out))
        .containsExactly(
            "HEADERS 1 {:status=200}",
            "DATA 1 [16384 bytes #0] padding=0".replace("#0", hash(16_384)),
            "DATA 1 [16384 bytes #0] padding=0".replace("#0", hash(16_384)),
            "DATA 1 [16384 bytes #0] padding=0".replace("#0", hash(16_384)),
            "DATA 1 [16383 bytes #0] padding=0".replace("#0", hash(16_383)));
    assertThat(c.queuedBytes(1)).isEqualTo(100_000 - 65_535);

    ByteBuf in = peer.frames();
    peer.writer.writeWindowUpdate(in, 1, 100_000);
    assertThat(peer.send(in)).as("the connection's window is still empty").isEmpty();
    in = peer.frames();
    peer.writer.writeWindowUpdate(in, 0, 30_000);
    assertThat(peer.send(in)).hasSize(2);
    assertThat(c.queuedBytes(1)).isEqualTo(100_000 - 95_535);
    in = peer.frames();
    peer.writer.writeWindowUpdate(in, 0, 30_000);
    assertThat(peer.send(in))
        .containsExactly(
            "DATA 1 [4465 bytes #0] padding=0".replace("#0", hash(4465)),
            "HEADERS 1 {grpc-status=0} END_STREAM");
    assertThat(c.queuedBytes(1)).isZero();
    assertThat(c.activeStreams()).as("the client has not ended its side").isEqualTo(1);
  }

  @Test
  void streamsWaitingForTheConnectionWindowTakeTurns() {
    peer = new Http2TestPeer(true, Http2Limits.defaults(), 11);
    peer.handshake(new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 1 << 20));
    ByteBuf in = peer.headers(peer.frames(), 1, false, REQUEST);
    peer.headers(in, 3, false, REQUEST);
    peer.send(in);
    Http2Connection c = peer.connection;
    ByteBuf out = out();
    c.sendData(out, 1, bytes(65_535), false);
    c.sendData(out, 3, bytes(1000), false);
    c.sendData(out, 1, bytes(1000), false);
    assertThat(peer.read(out)).hasSize(4);
    in = peer.frames();
    peer.writer.writeWindowUpdate(in, 0, 1500);
    assertThat(peer.send(in))
        .containsExactly(
            "DATA 3 [1000 bytes #0] padding=0".replace("#0", hash(1000)),
            "DATA 1 [500 bytes #0] padding=0".replace("#0", hash(500)));
  }

  @Test
  void initialWindowSizeChangesApplyToOpenStreamsAndMayGoNegative() {
    peer = new Http2TestPeer(true, Http2Limits.defaults(), 11);
    peer.handshake(new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 0));
    peer.send(peer.headers(peer.frames(), 1, false, REQUEST));
    Http2Connection c = peer.connection;
    ByteBuf out = out();
    c.sendData(out, 1, bytes(3000), true);
    assertThat(peer.read(out)).isEmpty();

    ByteBuf in = peer.frames();
    peer.writer.writeSettings(in, new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 1000));
    assertThat(peer.send(in))
        .containsExactly(
            "SETTINGS ACK", "DATA 1 [1000 bytes #0] padding=0".replace("#0", hash(1000)));
    in = peer.frames();
    peer.writer.writeSettings(in, new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 500));
    peer.writer.writeWindowUpdate(in, 1, 600); // -500 + 600
    assertThat(peer.send(in))
        .containsExactly(
            "SETTINGS ACK", "DATA 1 [100 bytes #0] padding=0".replace("#0", hash(100)));
    in = peer.frames();
    peer.writer.writeWindowUpdate(in, 1, 5000);
    assertThat(peer.send(in))
        .containsExactly("DATA 1 [1900 bytes #0] padding=0 END_STREAM".replace("#0", hash(1900)));
  }

  @Test
  void windowOverflowIsAFlowControlError() {
    serverWithRequest(Http2Limits.defaults());
    ByteBuf in = peer.frames();
    peer.writer.writeWindowUpdate(in, 1, Integer.MAX_VALUE);
    assertThat(peer.send(in)).containsExactly("RST_STREAM 1 " + FLOW_CONTROL_ERROR);
    assertThat(peer.events.lines).containsExactly("reset 1 3 here");

    peer.send(peer.headers(peer.frames(), 3, false, REQUEST));
    in = peer.frames();
    peer.writer.writeSettings(
        in, new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, Integer.MAX_VALUE));
    peer.writer.writeWindowUpdate(in, 3, 1);
    assertThat(peer.send(in)).last().asString().startsWith("RST_STREAM 3 3");

    in = peer.frames();
    peer.writer.writeWindowUpdate(in, 0, Integer.MAX_VALUE);
    assertThat(peer.send(in))
        .last()
        .asString()
        .startsWith(
            "GOAWAY 3 3 WINDOW_UPDATE of 2147483647 takes the send window of the connection");
  }

  @Test
  void initialWindowSizeOverflowEndsTheConnection() {
    serverWithRequest(Http2Limits.defaults());
    ByteBuf in = peer.frames();
    peer.writer.writeWindowUpdate(in, 1, Integer.MAX_VALUE - 65_535);
    peer.writer.writeSettings(
        in, new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 65_536));
    assertThat(peer.send(in))
        .last()
        .asString()
        .startsWith("GOAWAY 1 3 SETTINGS_INITIAL_WINDOW_SIZE change of 1");
  }

  @Test
  void queueLimitsResetTheStreamThenEndTheConnection() {
    peer = new Http2TestPeer(true, limits(1 << 20, 70_000, 80_000), 11);
    peer.handshake(new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 0));
    ByteBuf in = peer.headers(peer.frames(), 1, false, REQUEST);
    peer.headers(in, 3, false, REQUEST);
    peer.headers(in, 5, false, REQUEST);
    peer.send(in);
    peer.events.lines.clear();
    Http2Connection c = peer.connection;
    ByteBuf out = out();
    assertThat(c.sendData(out, 1, bytes(70_001), false)).isTrue();
    assertThat(peer.read(out)).containsExactly("RST_STREAM 1 " + ENHANCE_YOUR_CALM);
    assertThat(peer.events.lines).containsExactly("reset 1 11 here");

    out = out();
    c.sendData(out, 3, bytes(50_000), false);
    c.sendData(out, 5, bytes(40_000), false);
    assertThat(peer.read(out))
        .containsExactly("GOAWAY 5 11 more than 80000 bytes waiting for the peer");
    assertThat(c.isClosed()).isTrue();
  }

  private static String hash(int zeros) {
    ByteBuf b = io.netty.buffer.Unpooled.buffer(zeros).writeZero(zeros);
    try {
      return "#" + Integer.toHexString(io.netty.buffer.ByteBufUtil.hashCode(b));
    } finally {
      b.release();
    }
  }
}
