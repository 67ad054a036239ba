package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.DATA;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_ACK;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.NO_ERROR;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.SETTINGS;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.testing.Await;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Tern server's graceful shutdown as a raw HTTP/2 client sees it: GOAWAY with NO_ERROR (first
 * with the largest stream id and a PING, then, once the PING is acknowledged, with the id of the
 * last stream it took), the stream in flight served to its end, later streams refused without
 * reaching the application, and finally the connection closed.
 */
class GracefulShutdownWireTest {
  private static final int MAX_STREAM_ID = Integer.MAX_VALUE;
  private static final int REFUSED_STREAM = 0x7;
  private static final int STREAM_CLOSED = 0x5;

  /** A frame type HTTP/2 does not define, which a peer must ignore (RFC 9113 section 4.1). */
  private static final int UNKNOWN_FRAME_TYPE = 0xee;

  /** More than loopback sockets buffer on both ends together (Linux grows them to a few MiB). */
  private static final int BURST_BYTES = 32 << 20;

  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final String BIDI = "/" + EchoService.BIDI_STREAMING.getFullMethodName();

  private final HostileProbe probe = new HostileProbe();

  @Test
  void shutdownSendsGoAwayAndFinishesTheStreamInFlight() throws Exception {
    Server server = startServer();
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      shutDownWithStreamOneInFlight(server, raw);

      finishStreamOne(raw);

      assertThat(raw.closedByServer()).as("connection closed by the server").isTrue();
    }
    assertThat(probe.callsStarted).as("calls that reached the application").hasValue(1);
    assertThat(server.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
  }

  @Test
  void streamOpenedAfterTheFinalGoAwayIsRefusedAndTheOneInFlightStillFinishes() throws Exception {
    Server server = startServer();
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      shutDownWithStreamOneInFlight(server, raw);
      raw.writeHeaders(3, false, grpcRequestHeaders(BIDI));
      raw.writeData(3, true, grpcMessage(0, "too late".getBytes(UTF_8)));

      List<Frame> rest = finishStreamOne(raw);

      List<Frame> late = rest.stream().filter(f -> f.streamId() == 3).toList();
      assertThat(late).as("answers on the late stream").isNotEmpty();
      assertThat(late.get(0).type()).as("first answer: %s", late.get(0)).isEqualTo(RST_STREAM);
      assertThat(late.get(0).errorCode()).isEqualTo(REFUSED_STREAM);
      // The DATA that was already on its way may draw a second reset (Netty forgets a reset
      // stream quickly and answers STREAM_CLOSED); nothing else may come on that stream.
      for (Frame frame : late.subList(1, late.size())) {
        assertThat(frame.type()).as("later answer: %s", frame).isEqualTo(RST_STREAM);
        assertThat(frame.errorCode()).isIn(REFUSED_STREAM, STREAM_CLOSED);
      }
    }
    assertThat(probe.callsStarted).as("calls that reached the application").hasValue(1);
    assertThat(server.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
  }

  /**
   * A client whose stream the draining server refused may still be sending that stream's DATA when
   * the server's last GOAWAY goes out: the server then half-closes and reads (discarding) until the
   * client closes, instead of closing over unread bytes, which makes the kernel reset the
   * connection. A reset can reach the client before it has read the frames that say its stream was
   * refused, and the client, failing a write, ends the call as if the server had processed it
   * (UNAVAILABLE "GOAWAY received: NO_ERROR" during a rolling restart) instead of retrying it.
   */
  @Test
  void clientStillSendingAfterTheFinalGoAwayReadsItsRefusalNotAReset() throws Exception {
    Server server = startServer();
    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      Frame settings = raw.readFrame();
      assertThat(settings.type()).as("the server's first frame: %s", settings).isEqualTo(SETTINGS);
      server.shutdown();
      Frame first = awaitFrame(raw, GOAWAY);
      assertThat(first.lastStreamId()).as("first GOAWAY %s", first).isEqualTo(MAX_STREAM_ID);
      Frame ping = awaitFrame(raw, PING);

      // A request that crossed the first GOAWAY: refused, as shutdown() was already asked for.
      raw.writeHeaders(1, false, grpcRequestHeaders(BIDI));
      Frame refusal = awaitFrame(raw, RST_STREAM);
      assertThat(refusal.streamId()).isEqualTo(1);
      assertThat(refusal.errorCode()).isEqualTo(REFUSED_STREAM);

      // The PING's answer ends the shutdown (no stream is left); the bytes behind it, which the
      // client had queued before it read the refusal, are more than the sockets' buffers hold,
      // so the write completes only if the server keeps reading after its last GOAWAY.
      ByteArrayOutputStream burst = new ByteArrayOutputStream();
      burst.writeBytes(RawHttp2Connection.frame(PING, FLAG_ACK, 0, ping.payload()));
      byte[] filler = RawHttp2Connection.frame(UNKNOWN_FRAME_TYPE, 0, 0, new byte[16_384]);
      while (burst.size() < BURST_BYTES) {
        burst.writeBytes(filler);
      }
      raw.writeRaw(burst.toByteArray());
      assertThat(raw.writeFailed())
          .as("the client's write failed: the server closed over unread bytes (a reset)")
          .isFalse();

      Frame last = awaitFrame(raw, GOAWAY);
      assertThat(last).as("the final GOAWAY, read before the connection ended").isNotNull();
      assertThat(last.errorCode()).isEqualTo(NO_ERROR);
      assertThat(last.lastStreamId()).as("final GOAWAY %s", last).isEqualTo(1);
      assertThat(raw.readFrame()).as("nothing after the final GOAWAY").isNull();
    }
    assertThat(probe.callsStarted).as("calls that reached the application").hasValue(0);
    assertThat(server.awaitTermination(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
  }

  /** Reads up to the next frame of {@code type} without answering PINGs; null at the end. */
  private static Frame awaitFrame(RawHttp2Connection raw, int type) throws IOException {
    for (Frame frame = raw.readFrame(); frame != null; frame = raw.readFrame()) {
      if (frame.type() == type) {
        return frame;
      }
    }
    return null;
  }

  private Server startServer() throws IOException {
    return cleanup.register(
        ServerBuilder.forPort(0)
            .addService(EchoService.definition())
            .intercept(probe.interceptor())
            .build()
            .start());
  }

  /**
   * Opens a bidirectional call on stream 1 and has one message echoed, shuts the server down, and
   * checks the GOAWAYs (acknowledging the PING between them) up to the one naming stream 1 as the
   * last the server took.
   */
  private static void shutDownWithStreamOneInFlight(Server server, RawHttp2Connection raw)
      throws IOException {
    raw.writeHeaders(1, false, grpcRequestHeaders(BIDI));
    raw.writeData(1, false, grpcMessage(0, "one".getBytes(UTF_8)));
    assertThat(awaitData(raw, 1, message("one").length)).isEqualTo(message("one"));

    server.shutdown();

    Frame first = awaitAnsweringPings(raw, GOAWAY);
    assertThat(first).as("a GOAWAY after shutdown()").isNotNull();
    assertThat(first.errorCode()).as("GOAWAY %s", first).isEqualTo(NO_ERROR);
    Frame last = first;
    if (first.lastStreamId() == MAX_STREAM_ID) {
      // The first of two: streams already on their way are still taken; the second says which.
      last = awaitAnsweringPings(raw, GOAWAY);
      assertThat(last).as("the second GOAWAY, after the PING").isNotNull();
      assertThat(last.errorCode()).as("GOAWAY %s", last).isEqualTo(NO_ERROR);
    }
    assertThat(last.lastStreamId()).as("last stream id of %s", last).isEqualTo(1);
  }

  /**
   * Sends one more message on stream 1 and half-closes it; checks the echo and the OK trailers
   * arrive before the server closes the connection. Returns every frame read.
   */
  private static List<Frame> finishStreamOne(RawHttp2Connection raw) throws IOException {
    raw.writeData(1, false, grpcMessage(0, "two".getBytes(UTF_8)));
    raw.writeData(1, true, new byte[0]);
    List<Frame> rest = new ArrayList<>();
    for (Frame frame = readAnsweringPings(raw); frame != null; frame = readAnsweringPings(raw)) {
      rest.add(frame);
    }
    assertThat(dataOn(rest, 1))
        .as("the in-flight stream's echo; frames until the connection closed: %s", rest)
        .isEqualTo(message("two"));
    Frame trailers = trailersOn(rest, 1);
    assertThat(trailers).as("trailers of the in-flight stream; frames %s", rest).isNotNull();
    assertThat(trailers.headers()).containsEntry("grpc-status", "0");
    return rest;
  }

  private static byte[] message(String text) {
    return grpcMessage(0, text.getBytes(UTF_8));
  }

  /** Reads the next frame, acknowledging the server's PINGs on the way (a live client would). */
  private static Frame readAnsweringPings(RawHttp2Connection raw) throws IOException {
    while (true) {
      Frame frame = raw.readFrame();
      if (frame == null || frame.type() != PING || (frame.flags() & FLAG_ACK) != 0) {
        return frame;
      }
      try {
        raw.writeFrame(PING, FLAG_ACK, 0, frame.payload());
      } catch (IOException e) {
        // Closing: the next read sees the end.
      }
    }
  }

  private static Frame awaitAnsweringPings(RawHttp2Connection raw, int type) throws IOException {
    for (Frame frame = readAnsweringPings(raw); frame != null; frame = readAnsweringPings(raw)) {
      if (frame.type() == type) {
        return frame;
      }
    }
    return null;
  }

  /** Reads DATA on {@code streamId} until {@code length} bytes came, and returns them. */
  private static byte[] awaitData(RawHttp2Connection raw, int streamId, int length)
      throws IOException {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    while (data.size() < length) {
      Frame frame = readAnsweringPings(raw);
      if (frame == null) {
        throw new AssertionError("connection closed after " + data.size() + " bytes of DATA");
      }
      if (frame.type() == DATA && frame.streamId() == streamId) {
        data.writeBytes(frame.payload());
      }
    }
    return data.toByteArray();
  }

  private static byte[] dataOn(List<Frame> frames, int streamId) {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    for (Frame frame : frames) {
      if (frame.type() == DATA && frame.streamId() == streamId) {
        data.writeBytes(frame.payload());
      }
    }
    return data.toByteArray();
  }

  private static Frame trailersOn(List<Frame> frames, int streamId) {
    for (Frame frame : frames) {
      if (frame.type() == HEADERS && frame.streamId() == streamId && frame.endStream()) {
        return frame;
      }
    }
    return null;
  }
}
