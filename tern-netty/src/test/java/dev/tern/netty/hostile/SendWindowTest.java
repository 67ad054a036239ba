package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.DATA;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_ACK;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.SETTINGS;
import static dev.tern.netty.hostile.RawHttp2Connection.WINDOW_UPDATE;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A small response is written past the flow controller only when the windows allow it: a client
 * whose stream window is smaller than the response gets no more DATA than its window, and the
 * trailers only after the rest of the DATA, once it opens the window.
 */
class SendWindowTest extends HostileServerBase {
  private static final int WINDOW = 2;

  @Test
  void smallResponseWaitsForTheClientsWindowAndTrailersWaitForIt() throws Exception {
    try (RawHttp2Connection raw = openRaw()) {
      byte[] initialWindow = ByteBuffer.allocate(6).putShort((short) 0x4).putInt(WINDOW).array();
      raw.writeFrame(SETTINGS, 0, 0, initialWindow);
      raw.writeFrame(
          HEADERS,
          FLAG_END_HEADERS,
          1,
          headerBlock(grpcRequestHeaders("/" + HostileProbe.GATE.getFullMethodName())));
      raw.writeFrame(DATA, FLAG_END_STREAM, 1, grpcMessage(0, "hi".getBytes(UTF_8)));
      probe.gated.poll(30, TimeUnit.SECONDS).run(); // answers "released" and ends the call

      ByteArrayOutputStream data = new ByteArrayOutputStream();
      Frame frame = raw.readFrame();
      while (frame.type() != HEADERS || frame.streamId() != 1) {
        frame = raw.readFrame(); // the SETTINGS ACK and the server's own SETTINGS
      }
      assertThat(frame.endStream()).as("response headers, not Trailers-Only").isFalse();
      // A PING's ACK comes after whatever the server wrote with the response headers.
      raw.writePing(7);
      for (frame = raw.readFrame(); !isPingAck(frame); frame = raw.readFrame()) {
        assertThat(frame.type()).as("before the window opens: %s", frame).isEqualTo(DATA);
        data.writeBytes(frame.payload());
      }
      assertThat(data.size()).as("DATA bytes within the stream window").isEqualTo(WINDOW);

      raw.writeFrame(WINDOW_UPDATE, 0, 1, ByteBuffer.allocate(4).putInt(1 << 20).array());
      for (frame = raw.readFrame(); frame.type() == DATA; frame = raw.readFrame()) {
        data.writeBytes(frame.payload());
      }
      assertThat(frame.type()).as("%s", frame).isEqualTo(HEADERS);
      assertThat(frame.endStream()).isTrue();
      assertThat(frame.headers()).containsEntry("grpc-status", "0");
      assertThat(data.toByteArray()).isEqualTo(grpcMessage(0, "released".getBytes(UTF_8)));
    }
    assertStillServingWellBehavedClient();
  }

  private static boolean isPingAck(Frame frame) {
    return frame.type() == PING && (frame.flags() & FLAG_ACK) != 0;
  }
}
