package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.ENHANCE_YOUR_CALM;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_ACK;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.PROTOCOL_ERROR;
import static dev.tern.netty.hostile.RawHttp2Connection.SETTINGS;
import static dev.tern.netty.hostile.RawHttp2Connection.frame;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static dev.tern.netty.hostile.RawHttp2Connection.lastOfType;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.internal.http2.Http2Limits;
import dev.tern.netty.internal.server.ServerOptions;
import dev.tern.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Connections that are wrong from their first bytes, and floods of control frames, against a Tern
 * server: each connection is closed or calmed down as HTTP/2 (RFC 9113) says, with bounded work,
 * while a well-behaved Tern client on its own connection goes on being served.
 */
class HostileConnectionTest extends HostileServerBase {
  /** Enough of each flood to trip any sane limit, small enough to stay quick. */
  private static final int FLOOD = 2_000;

  /** Control frames written at a time by a peer that does not read. */
  private static final int CONTROL_BATCH = 1_000;

  /**
   * SETTINGS frames sent by a peer that does not read: 9 MB, so that their 9-byte acknowledgements
   * overflow the server's socket send buffer (at most 4 MiB by Linux's default tcp_wmem) and then
   * the default bound of 10,000 queued control frames many times over.
   */
  private static final int CONTROL_FLOOD = 1_000_000;

  /**
   * What one small control frame queued for writing takes in the server's buffers: its 9 bytes,
   * rounded up to the allocator's size class, with room to spare.
   */
  private static final long QUEUED_FRAME_BYTES = 64;

  /**
   * The control frames (PINGs, SETTINGS) a peer may send without asking for any work, whose answers
   * the engine writes (Http2FloodGuard): past it the connection ends with ENHANCE_YOUR_CALM.
   */
  private static final int MAX_CONTROL_FRAMES =
      Http2Limits.defaults().maxControlFramesWithoutWork();

  /** What one queued control frame keeps on the heap: its promise and listener, generously. */
  private static final long QUEUED_FRAME_HEAP_BYTES = 256;

  /**
   * The most of one header block the server buffers before it gives up on the connection: three
   * times the default 8 KiB metadata limit (the GOAWAY threshold is the limit plus at least 16
   * KiB).
   */
  private static final long HEADER_BLOCK_CUTOFF = 3 * 8 * 1024;

  /**
   * What the streams a rapid reset flood gets the server to open may take in its buffers before the
   * flood is cut off: a few KiB for each of {@link
   * ServerOptions#DEFAULT_MAX_RST_FRAMES_PER_WINDOW}.
   */
  private static final long RESET_STREAMS_BYTES =
      ServerOptions.DEFAULT_MAX_RST_FRAMES_PER_WINDOW * 4L * 1024;

  /** How long writing {@link #CONTROL_FLOOD} may take before the test gives up on the server. */
  private static final Duration CONTROL_FLOOD_TIMEOUT = Duration.ofMinutes(2);

  @Test
  void garbageInsteadOfThePrefaceClosesTheConnection() throws IOException {
    byte[] garbage = new byte[4096];
    new Random(42).nextBytes(garbage);
    assertClosedAfter(garbage);
    assertStillServingWellBehavedClient();
  }

  @Test
  void http11RequestClosesTheConnection() throws IOException {
    String request =
        "POST /tern.testing.Echo/Unary HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\n"
            + "Content-Type: application/grpc\r\n"
            + "Content-Length: 7\r\n\r\n"
            + "\0\0\0\0\2hi";
    byte[] answer = assertClosedAfter(request.getBytes(US_ASCII));
    // If it answered in HTTP/1.1, it must not have been a success.
    String text = new String(answer, US_ASCII);
    assertThat(text).doesNotStartWith("HTTP/1.1 200");
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  @Test
  void corruptPrefaceClosesTheConnection() throws IOException {
    byte[] preface = RawHttp2Connection.PREFACE.clone();
    preface[preface.length - 3] = 'X'; // "...SM\r\nX\r\n"
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes(preface);
    bytes.writeBytes(frame(SETTINGS, 0, 0, new byte[0]));
    assertClosedAfter(bytes.toByteArray());
    assertStillServingWellBehavedClient();
  }

  @Test
  void prefaceFollowedByANonSettingsFrameIsAProtocolError() throws IOException {
    // RFC 9113 3.4: the preface must be followed by SETTINGS.
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes(RawHttp2Connection.PREFACE);
    bytes.writeBytes(frame(PING, 0, 0, new byte[8]));
    assertClosedAfter(bytes.toByteArray());
    assertStillServingWellBehavedClient();
  }

  @Test
  void evenStreamIdFromAClientIsAConnectionProtocolError() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(2, true, grpcRequestHeaders("/tern.testing.Echo/Unary"));
      Frame goAway = lastOfType(raw.awaitClose(), GOAWAY);

      // RFC 9113 5.1.1: client streams are odd; anything else is a connection error.
      assertThat(goAway).as("GOAWAY before closing").isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(PROTOCOL_ERROR);
    }
    assertThat(callsStartedByTest()).isZero();
    assertStillServingWellBehavedClient();
  }

  @Test
  void connectionWindowOverflowIsAFlowControlError() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      // 65,535 plus 2^31-1 exceeds the largest window allowed (RFC 9113 6.9.1).
      byte[] increment = ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array();
      raw.writeFrame(RawHttp2Connection.WINDOW_UPDATE, 0, 0, increment);
      Frame goAway = lastOfType(raw.awaitClose(), GOAWAY);

      assertThat(goAway).as("GOAWAY before closing").isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(0x3); // FLOW_CONTROL_ERROR
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void invalidSettingsValueIsAConnectionProtocolError() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      // SETTINGS_MAX_FRAME_SIZE below the 16,384 minimum (RFC 9113 6.5.2).
      byte[] payload = ByteBuffer.allocate(6).putShort((short) 0x5).putInt(100).array();
      raw.writeFrame(SETTINGS, 0, 0, payload);
      Frame goAway = lastOfType(raw.awaitClose(), GOAWAY);

      assertThat(goAway).as("GOAWAY before closing").isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(PROTOCOL_ERROR);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void frameLargerThanTheAdvertisedMaximumIsAFrameSizeError() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      int maxFrameSize = raw.awaitPeerSetting(0x5, 16_384);
      raw.writeHeaders(1, false, grpcRequestHeaders("/tern.testing.Echo/Unary"));
      raw.writeFrame(RawHttp2Connection.DATA, 0, 1, new byte[maxFrameSize + 1]);
      Frame goAway = lastOfType(raw.awaitClose(), GOAWAY);

      // RFC 9113 4.2: FRAME_SIZE_ERROR, a connection error for a frame this large.
      assertThat(goAway).as("GOAWAY before closing").isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(0x6); // FRAME_SIZE_ERROR
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void endlessContinuationFramesAreCutOff() throws Exception {
    ExecutorService writer = cleanup.register(Executors.newSingleThreadExecutor());
    try (RawHttp2Connection raw = openRaw()) {
      byte[] first = headerBlock(grpcRequestHeaders("/tern.testing.Echo/Unary"));
      // About 3 MiB of header block that never ends (no END_HEADERS anywhere).
      Future<?> written =
          writer.submit(
              () -> {
                try {
                  raw.writeFrame(RawHttp2Connection.HEADERS, 0, 1, first);
                  for (int i = 0; i < 200; i++) {
                    List<String[]> filler = new ArrayList<>();
                    filler.add(new String[] {"filler-" + i, "f".repeat(15_900)});
                    raw.writeFrame(RawHttp2Connection.CONTINUATION, 0, 1, headerBlock(filler));
                  }
                } catch (IOException e) {
                  // The server closed the connection under the flood.
                }
                return null;
              });
      written.get(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
      List<Frame> frames = raw.awaitClose();
      Frame goAway = lastOfType(frames, GOAWAY);

      // The server must give up on a header block this large (CVE-2024-27316) and close the
      // connection: a GOAWAY with an error, since the header block state is lost.
      assertThat(goAway).as("GOAWAY before closing; frames %s", frames).isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isNotEqualTo(0);
    }
    assertThat(callsStartedByTest()).isZero();
    assertMemoryBounded(HEADER_BLOCK_CUTOFF, "the header block's GOAWAY threshold");
    assertStillServingWellBehavedClient();
  }

  @Test
  void headerBlockSplitIntoManySmallContinuationFramesIsAccepted() throws IOException {
    List<String[]> headers = grpcRequestHeaders("/tern.testing.Echo/Unary");
    for (int i = 0; i < 6; i++) {
      headers.add(new String[] {"x-big-" + i, "v".repeat(1000)});
    }
    byte[] block = headerBlock(headers);
    byte[] message = grpcMessage(0, "small frames".getBytes(UTF_8));
    try (RawHttp2Connection raw = openRaw()) {
      // About 6 KiB of metadata, under the 8 KiB limit, as a HEADERS frame and 24 CONTINUATIONs
      // of 256 bytes, as some senders split it; RFC 9113 sets no minimum frame size.
      int frames = 0;
      for (int offset = 0; offset < block.length; offset += 256) {
        int end = Math.min(block.length, offset + 256);
        byte[] fragment = Arrays.copyOfRange(block, offset, end);
        int flags = end == block.length ? RawHttp2Connection.FLAG_END_HEADERS : 0;
        raw.writeFrame(
            offset == 0 ? RawHttp2Connection.HEADERS : RawHttp2Connection.CONTINUATION,
            flags,
            1,
            fragment);
        frames++;
      }
      raw.writeData(1, true, message);
      RawHttp2Connection.StreamEnd end = raw.awaitStreamEnd(1);

      assertThat(frames).isEqualTo(25);
      assertThat(end.headers())
          .as("frames %s", end.frames())
          .containsEntry(":status", "200")
          .containsEntry("grpc-status", "0");
      assertThat(end.data()).isEqualTo(message);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void floodOfEmptyContinuationFramesIsCutOff() throws Exception {
    ExecutorService writer = cleanup.register(Executors.newSingleThreadExecutor());
    try (RawHttp2Connection raw = openRaw()) {
      byte[] first = headerBlock(grpcRequestHeaders("/tern.testing.Echo/Unary"));
      // Empty CONTINUATIONs add nothing to the header block, so its size limit never stops them.
      Future<?> written =
          writer.submit(
              () -> {
                try {
                  raw.writeFrame(RawHttp2Connection.HEADERS, 0, 1, first);
                  for (int i = 0; i < 100_000; i++) {
                    raw.writeFrame(RawHttp2Connection.CONTINUATION, 0, 1, new byte[0]);
                  }
                } catch (IOException e) {
                  // The server closed the connection under the flood.
                }
                return null;
              });
      written.get(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
      List<Frame> frames = raw.awaitClose();
      Frame goAway = lastOfType(frames, GOAWAY);

      assertThat(goAway).as("GOAWAY before closing; frames %s", frames).isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
    }
    assertThat(callsStartedByTest()).isZero();
    assertMemoryBounded(HEADER_BLOCK_CUTOFF, "the header block's GOAWAY threshold");
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void rapidResetFloodLeavesTheServerServing() throws Exception {
    try (RawHttp2Connection raw = openRaw()) {
      int written = rapidResetFlood(raw);
      // Then a PING: answered if the server took the whole flood, or a GOAWAY if it cut it off.
      boolean open = true;
      try {
        raw.writePing(FLOOD);
      } catch (IOException e) {
        open = false;
      }
      Frame answer = open ? awaitPingAckOrGoAway(raw) : lastOfType(raw.awaitClose(), GOAWAY);

      assertThat(written).isPositive();
      // Answered, cut off with ENHANCE_YOUR_CALM, or closed: anything but a hang or a crash.
      if (answer != null && answer.type() == GOAWAY) {
        assertThat(answer.errorCode()).as("GOAWAY %s", answer).isEqualTo(ENHANCE_YOUR_CALM);
      }
    }
    assertMemoryBounded(RESET_STREAMS_BYTES, "maxRstFramesPerWindow");
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void rapidResetFloodIsCutOffWithGoAwayEnhanceYourCalm() throws Exception {
    try (RawHttp2Connection raw = openRaw()) {
      rapidResetFlood(raw);
      try {
        raw.writePing(FLOOD);
      } catch (IOException e) {
        // Already closed: the GOAWAY, if any, is waiting to be read.
      }
      Frame answer = awaitPingAckOrGoAway(raw);

      // CVE-2023-44487: a server must bound the work a peer can cause by opening and resetting.
      assertThat(answer)
          .as("GOAWAY expected; the server took all %d opened-and-reset streams", FLOOD)
          .isNotNull()
          .extracting(Frame::type)
          .isEqualTo(GOAWAY);
      assertThat(answer.errorCode()).as("GOAWAY %s", answer).isEqualTo(ENHANCE_YOUR_CALM);
      assertThat(callsStartedByTest())
          .as("calls the application had to start for %d reset streams", FLOOD)
          .isLessThan(FLOOD);
    }
    assertMemoryBounded(RESET_STREAMS_BYTES, "maxRstFramesPerWindow");
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void pingFloodIsAnsweredInFullOrCalmedDown() throws Exception {
    List<Frame> answers =
        flood(FLOOD, i -> frame(PING, 0, 0, ByteBuffer.allocate(8).putLong(i).array()), PING);

    assertAnsweredInOrderOrCalmedDown(answers, PING);
    assertMemoryBounded(
        (long) MAX_CONTROL_FRAMES * QUEUED_FRAME_BYTES, "the engine's bound on control frames");
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void settingsFloodIsAnsweredInFullOrCalmedDown() throws Exception {
    // Each SETTINGS frame sets INITIAL_WINDOW_SIZE, which the server must apply and acknowledge.
    byte[] payload = ByteBuffer.allocate(6).putShort((short) 0x4).putInt(65_535).array();
    List<Frame> answers = flood(FLOOD, i -> frame(SETTINGS, 0, 0, payload), SETTINGS);

    assertAnsweredInOrderOrCalmedDown(answers, SETTINGS);
    assertMemoryBounded(
        (long) MAX_CONTROL_FRAMES * QUEUED_FRAME_BYTES, "the engine's bound on control frames");
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void controlFrameFloodFromAPeerThatDoesNotReadIsCutOff() throws Exception {
    // SETTINGS frames, each of which the server must acknowledge. (Not PINGs: the server's
    // keepalive policy cuts off a PING flood on its own, acknowledgements queued or not.)
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int i = 0; i < CONTROL_BATCH; i++) {
      batch.writeBytes(frame(SETTINGS, 0, 0, new byte[0]));
    }
    byte[] frames = batch.toByteArray();
    ExecutorService writer = cleanup.register(Executors.newSingleThreadExecutor());
    try (RawHttp2Connection raw =
        RawHttp2Connection.openWithReceiveBuffer(server.getPort(), 4096)) {
      // Nothing is read while the flood goes out: the acknowledgements can only pile up.
      Future<?> written =
          writer.submit(
              () -> {
                for (int sent = 0; sent < CONTROL_FLOOD && !raw.writeFailed(); ) {
                  raw.writeRaw(frames);
                  sent += CONTROL_BATCH;
                }
                return null;
              });
      // The server processes the flood slowly under paranoid leak detection (about 15 s here).
      written.get(CONTROL_FLOOD_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
      // Whatever the server queued for this peer, it still holds now.
      memory.assertRetainedHeapGrowthAtMost(
          (long) MAX_CONTROL_FRAMES * QUEUED_FRAME_HEAP_BYTES,
          "the engine's bound on control frames");
      List<Frame> answers = raw.awaitClose();

      // A server that queued every acknowledgement sends them all and keeps the connection open,
      // and awaitClose fails; one that bounds them closes it having sent far fewer.
      long acks = answers.stream().filter(f -> (f.flags() & FLAG_ACK) != 0).count();
      assertThat(acks).as("acknowledgements before the close").isLessThan(CONTROL_FLOOD);
      Frame goAway = lastOfType(answers, GOAWAY);
      if (goAway != null) {
        assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
      }
    }
    assertMemoryBounded(
        (long) MAX_CONTROL_FRAMES * QUEUED_FRAME_BYTES, "the engine's bound on control frames");
    assertStillServingWellBehavedClient();
  }

  @Test
  void callAfterAPingBurstIsServedOrTheBurstIsCalmedDown() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      for (int i = 0; i < 100; i++) {
        raw.writePing(i);
      }
      raw.writeHeaders(1, false, grpcRequestHeaders("/tern.testing.Echo/Unary"));
      raw.writeData(1, true, grpcMessage(0, "after pings".getBytes(UTF_8)));
      RawHttp2Connection.StreamEnd end = raw.awaitStreamEnd(1);

      // A server enforcing a ping policy may say GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings").
      Frame goAway = lastOfType(end.frames(), GOAWAY);
      if (goAway != null) {
        assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
      } else {
        assertThat(end.headers()).as("frames %s", end.frames()).containsEntry("grpc-status", "0");
      }
    }
    assertStillServingWellBehavedClient();
  }

  /**
   * Opens and at once resets {@link #FLOOD} streams (HEADERS then RST_STREAM(CANCEL)), written on
   * another thread so that a server that stops reading cannot block the test, and waits until
   * written or cut off. Returns how many pairs went out.
   */
  private int rapidResetFlood(RawHttp2Connection raw) throws Exception {
    byte[] headers = headerBlock(grpcRequestHeaders("/tern.testing.Echo/Unary"));
    ExecutorService writer = cleanup.register(Executors.newSingleThreadExecutor());
    Future<Integer> written =
        writer.submit(
            () -> {
              int pairs = 0;
              try {
                for (int streamId = 1; pairs < FLOOD; pairs++, streamId += 2) {
                  raw.writeFrame(RawHttp2Connection.HEADERS, 0x4, streamId, headers);
                  raw.writeRstStream(streamId, RawHttp2Connection.CANCEL);
                }
              } catch (IOException e) {
                // The server closed the connection under the flood.
              }
              return pairs;
            });
    // The server answers a flood like this with little or nothing, so not reading meanwhile
    // cannot hold it up; the frames it did send are read afterwards.
    return written.get(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
  }

  private static Frame awaitPingAckOrGoAway(RawHttp2Connection raw) throws IOException {
    while (true) {
      Frame frame = raw.readFrame();
      if (frame == null
          || frame.type() == GOAWAY
          || (frame.type() == PING
              && (frame.flags() & FLAG_ACK) != 0
              && ByteBuffer.wrap(frame.payload()).getLong() == FLOOD)) {
        return frame;
      }
    }
  }

  /**
   * Sends {@code bytes} as the very first thing on a connection and waits for the server to close
   * it; if the server said anything in HTTP/2 first, its GOAWAY must be PROTOCOL_ERROR. Returns
   * what the server sent.
   */
  private byte[] assertClosedAfter(byte[] bytes) throws IOException {
    try (RawHttp2Connection raw = RawHttp2Connection.connect(server.getPort())) {
      try {
        raw.writeRaw(bytes);
      } catch (IOException e) {
        // Closed while we were still writing: fine, the read below sees the end.
      }
      byte[] answer = raw.awaitCloseRaw();
      for (Frame frame : parseFrames(answer)) {
        if (frame.type() == GOAWAY) {
          assertThat(frame.errorCode()).as("GOAWAY %s", frame).isEqualTo(PROTOCOL_ERROR);
        }
      }
      return answer;
    }
  }

  /** The frames in {@code bytes}, as far as they parse as HTTP/2 frames (none for HTTP/1.1). */
  private static List<Frame> parseFrames(byte[] bytes) {
    List<Frame> frames = new ArrayList<>();
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.remaining() >= 9) {
      int length = ((buffer.get() & 0xff) << 16) | ((buffer.get() & 0xff) << 8);
      length |= buffer.get() & 0xff;
      int type = buffer.get() & 0xff;
      int flags = buffer.get() & 0xff;
      int streamId = buffer.getInt() & 0x7fffffff;
      if (type > 0x9 || length > buffer.remaining()) {
        break; // Not HTTP/2 (an HTTP/1.1 answer, say).
      }
      byte[] payload = new byte[length];
      buffer.get(payload);
      frames.add(new Frame(type, flags, streamId, payload, Map.of()));
    }
    return frames;
  }

  private interface FrameMaker {
    byte[] make(int index);
  }

  /**
   * Writes {@code count} frames from another thread while this one reads, and returns the answers
   * of type {@code answerType} (acknowledgements), plus a GOAWAY if one came. Stops when every
   * frame was acknowledged or the server closed the connection.
   */
  private List<Frame> flood(int count, FrameMaker maker, int answerType) throws Exception {
    ExecutorService writer = cleanup.register(Executors.newSingleThreadExecutor());
    List<Frame> answers = new ArrayList<>();
    try (RawHttp2Connection raw = openRaw()) {
      writer.submit(
          () -> {
            try {
              for (int i = 0; i < count; i++) {
                raw.writeRaw(maker.make(i));
              }
            } catch (IOException e) {
              // The server closed the connection under the flood.
            }
          });
      int acks = 0;
      // The server's acknowledgement of our initial SETTINGS is not an answer to the flood.
      boolean initialSettingsAcked = answerType != SETTINGS;
      while (acks < count) {
        Frame frame = raw.readFrame();
        if (frame == null) {
          break;
        }
        if (frame.type() == GOAWAY) {
          answers.add(frame);
        } else if (frame.type() == answerType && (frame.flags() & FLAG_ACK) != 0) {
          if (!initialSettingsAcked) {
            initialSettingsAcked = true;
            continue;
          }
          answers.add(frame);
          acks++;
        }
      }
    }
    return answers;
  }

  /**
   * Either every frame was acknowledged (PINGs with their own payload, in order), or the server
   * said GOAWAY ENHANCE_YOUR_CALM: both bound the work, and RFC 9113 10.5 allows either.
   */
  private static void assertAnsweredInOrderOrCalmedDown(List<Frame> answers, int type) {
    Frame goAway = lastOfType(answers, GOAWAY);
    if (goAway != null) {
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
      return;
    }
    assertThat(answers).as("acknowledgements").hasSize(FLOOD);
    if (type == PING) {
      for (int i = 0; i < FLOOD; i++) {
        assertThat(ByteBuffer.wrap(answers.get(i).payload()).getLong()).isEqualTo(i);
      }
    }
  }
}
