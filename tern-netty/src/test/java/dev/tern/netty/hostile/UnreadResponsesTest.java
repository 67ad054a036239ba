package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.DATA;
import static dev.tern.netty.hostile.RawHttp2Connection.ENHANCE_YOUR_CALM;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.SETTINGS;
import static dev.tern.netty.hostile.RawHttp2Connection.WINDOW_UPDATE;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import dev.tern.testing.Await;
import dev.tern.testing.LogCapture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A client that does not read its responses (its HTTP/2 windows stay closed) against a server whose
 * handlers send without looking at {@code isReady()}: with the default limits the server holds a
 * bounded amount of memory for it, resets its calls or closes its connection with
 * ENHANCE_YOUR_CALM, and goes on serving a well-behaved client. A slow client that keeps reading
 * still gets a large response whole, and a handler that honours {@code isReady()} is held back,
 * never reset.
 */
class UnreadResponsesTest extends HostileServerBase {
  /** The size of each message a flooding handler sends: with its prefix, 64 KiB. */
  static final int MESSAGE = 64 * 1024 - 5;

  /**
   * Room for the allocator's own granularity: it counts whole chunks (up to several MiB each, one
   * or more per thread that allocates), not the bytes in use; 34 MiB of it was seen.
   */
  static final long SLACK = 64L * 1024 * 1024;

  /**
   * What each attack makes its handlers send, in all: 512 MiB, far more than any bound checked.
   * (The allocator keeps memory that earlier tests freed, and new buffers reuse it without raising
   * its count: a server holding everything still shows 512 MiB less what was kept.)
   */
  static final int FLOOD_MESSAGES = 8192;

  private static final int PER_STREAM_DEFAULT = 8 * 1024 * 1024;
  private static final long PER_CONNECTION_DEFAULT = 64L * 1024 * 1024;

  /** SETTINGS_INITIAL_WINDOW_SIZE of 0: the server may send no DATA on any stream. */
  static void closeAllStreamWindows(RawHttp2Connection raw) throws IOException {
    byte[] setting = ByteBuffer.allocate(6).putShort((short) 0x4).putInt(0).array();
    raw.writeFrame(SETTINGS, 0, 0, setting);
  }

  /** Starts a {@link HostileProbe#FLOOD} call on {@code streamId} asking for {@code request}. */
  static void startFlood(RawHttp2Connection raw, int streamId, String request) throws IOException {
    raw.writeHeaders(
        streamId, false, grpcRequestHeaders("/" + HostileProbe.FLOOD.getFullMethodName()));
    raw.writeData(streamId, true, grpcMessage(0, request.getBytes(UTF_8)));
  }

  /**
   * Starts {@code calls} {@link HostileProbe#FLOOD} calls on streams 1, 3, ... and lets them send
   * only once all have arrived: the first connection-wide cut-off would otherwise drop the requests
   * the server had not read yet, and their handlers would never run.
   */
  static void startFloodsTogether(
      RawHttp2Connection raw, HostileProbe probe, int calls, String request) throws IOException {
    CountDownLatch gate = new CountDownLatch(1);
    probe.floodGate = gate;
    for (int i = 0; i < calls; i++) {
      startFlood(raw, 1 + 2 * i, request);
    }
    for (int i = 0; i < calls; i++) {
      Await.poll(probe.floodsArrived, "the request of flooding call " + i);
    }
    gate.countDown();
  }

  /** Waits until {@code calls} flooding handlers are done sending. */
  static void awaitFloodsSent(HostileProbe probe, int calls) {
    for (int i = 0; i < calls; i++) {
      Await.poll(probe.floodsSent, "flooding handler " + i + " to finish sending");
    }
  }

  /** The lines {@code log} captured, formatted. */
  static List<String> lines(LogCapture log) {
    SimpleFormatter formatter = new SimpleFormatter();
    return log.records().stream().map(formatter::formatMessage).toList();
  }

  @Test
  @Tag("attack")
  void callSendingFarAheadOfAClientThatReadsNothingIsResetEnhanceYourCalm() throws Exception {
    long before = HostileProbe.allocatedBytes();
    try (RawHttp2Connection raw = openRaw();
        LogCapture log = new LogCapture("dev.tern.netty.connections", Level.FINE)) {
      closeAllStreamWindows(raw);
      startFlood(raw, 1, FLOOD_MESSAGES + ":" + MESSAGE);

      awaitFloodsSent(probe, 1);
      assertThat(probe.floodPeakAllocated.get() - before)
          .as("most bytes allocated while 512 MiB were sent to a stream nobody reads")
          .isLessThan(PER_STREAM_DEFAULT + SLACK);
      StreamEnd end = raw.awaitStreamEnd(1);
      assertThat(end.last().type())
          .as("how the stream ended: %s", end.last())
          .isEqualTo(RST_STREAM);
      assertThat(end.last().errorCode()).isEqualTo(ENHANCE_YOUR_CALM);
      Await.poll(probe.floodsCancelled, "the handler to see its call cancelled");
      assertThat(lines(log))
          .singleElement()
          .asString()
          .contains("cut off")
          .contains("the client does not read them");
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void manyCallsToAClientThatReadsNothingStayUnderTheConnectionLimit() throws Exception {
    int calls = 16;
    long before = HostileProbe.allocatedBytes();
    try (RawHttp2Connection raw = openRaw();
        LogCapture log = new LogCapture("dev.tern.netty.connections", Level.FINE)) {
      closeAllStreamWindows(raw);
      startFloodsTogether(raw, probe, calls, FLOOD_MESSAGES / calls + ":" + MESSAGE);

      awaitFloodsSent(probe, calls);
      assertThat(probe.floodPeakAllocated.get() - before)
          .as(
              "most bytes allocated while %d calls sent 32 MiB each to a client reading none",
              calls)
          .isLessThan(PER_CONNECTION_DEFAULT + SLACK);
      // Each call was reset, or the connection closed under them (which limit trips first depends
      // on how the handlers' threads interleave).
      Set<Integer> reset = new HashSet<>();
      while (reset.size() < calls) {
        Frame frame = raw.readFrame();
        if (frame == null) {
          break; // the connection was closed
        }
        if (frame.type() == RST_STREAM || frame.type() == GOAWAY) {
          assertThat(frame.errorCode()).as("%s", frame).isEqualTo(ENHANCE_YOUR_CALM);
        }
        if (frame.type() == RST_STREAM) {
          reset.add(frame.streamId());
        }
      }
      for (int i = 0; i < calls; i++) {
        Await.poll(probe.floodsCancelled, "handler " + i + " to see its call cancelled");
      }
      assertThat(lines(log))
          .as("lines logged for the connection")
          .singleElement()
          .asString()
          .contains("cut off");
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void slowClientThatKeepsReadingGetsALargeResponseWhole() throws IOException {
    int size = 16 * 1024 * 1024;
    int window = 65_535; // HTTP/2's initial window; the raw client's empty SETTINGS keeps it
    try (RawHttp2Connection raw = openRaw()) {
      // One 16 MiB message, all of it handed to the transport at once, far over the 8 MiB bound.
      startFlood(raw, 1, "1:" + size);
      long granted = window;
      long received = 0;
      Frame last = null;
      while (last == null || !(last.streamId() == 1 && last.endStream())) {
        last = raw.readFrame();
        assertThat(last).as("frame after %d DATA bytes", received).isNotNull();
        assertThat(last.type()).as("frame %s", last).isNotIn(RST_STREAM, GOAWAY);
        if (last.type() == DATA) {
          received += last.payload().length;
        }
        if (received == granted) {
          // Read one window's worth: open the next, on the stream and the connection.
          byte[] increment = ByteBuffer.allocate(4).putInt(window).array();
          raw.writeFrame(WINDOW_UPDATE, 0, 1, increment);
          raw.writeFrame(WINDOW_UPDATE, 0, 0, increment);
          granted += window;
        }
      }
      assertThat(received).as("DATA bytes: the message and its 5-byte prefix").isEqualTo(size + 5);
      assertThat(last.headers()).containsEntry("grpc-status", "0");
    }
    assertThat(probe.floodsCancelled).isEmpty();
    assertStillServingWellBehavedClient();
  }

  @Test
  void handlerHonouringIsReadyIsHeldBackNotReset() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      closeAllStreamWindows(raw);
      raw.writeHeaders(1, false, grpcRequestHeaders("/" + HostileProbe.BULK.getFullMethodName()));
      raw.writeData(1, true, grpcMessage(0, ("1024:" + MESSAGE).getBytes(UTF_8)));

      long sentWhenHeldBack = Await.poll(probe.bulkHeldBack, "the handler to find isReady() false");
      assertThat(sentWhenHeldBack * MESSAGE)
          .as("bytes sent before the handler was held back")
          .isLessThanOrEqualTo(MESSAGE + 32 * 1024);
      // The stream is still open: a PING sent after the request is answered, and no reset or
      // GOAWAY came before its answer.
      raw.writePing(42);
      for (Frame frame = raw.readFrame(); frame.type() != PING; frame = raw.readFrame()) {
        assertThat(frame.type()).as("frame %s", frame).isNotIn(RST_STREAM, GOAWAY);
      }
    }
    assertStillServingWellBehavedClient();
  }
}
