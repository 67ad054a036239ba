package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.lastOfType;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RFC 9113 section 6.5.3 on Tern's HTTP/2 engine: a client that never acknowledges the server's
 * SETTINGS loses the connection with GOAWAY(SETTINGS_TIMEOUT) once the configured time is up; one
 * that acknowledges them keeps it.
 */
class SettingsAckTimeoutTest {
  private static final int SETTINGS_TIMEOUT = 0x4;

  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private Server start(long settingsAckTimeoutMillis) throws Exception {
    return cleanup.register(
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .http2SettingsAckTimeout(settingsAckTimeoutMillis, TimeUnit.MILLISECONDS)
            .keepAliveTime(1, TimeUnit.SECONDS)
            .addService(new EchoService())
            .build()
            .start());
  }

  @Test
  void clientThatNeverAcksGetsGoAwaySettingsTimeoutAndTheConnectionCloses() throws Exception {
    Server server = start(100);
    try (RawHttp2Connection connection = RawHttp2Connection.connect(server.getPort())) {
      connection.neverAckSettings();
      connection.writeRaw(RawHttp2Connection.PREFACE);
      connection.writeFrame(RawHttp2Connection.SETTINGS, 0, 0, new byte[0]);

      List<RawHttp2Connection.Frame> frames = connection.awaitClose();

      RawHttp2Connection.Frame goAway = lastOfType(frames, GOAWAY);
      assertThat(goAway).as("GOAWAY in %s", frames).isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(SETTINGS_TIMEOUT);
      assertThat(debugData(goAway)).isEqualTo("SETTINGS not acknowledged in time");
    }
  }

  @Test
  void clientThatAcksKeepsTheConnectionPastTheTimeout() throws Exception {
    // The settings timer (100 ms) fires long before the keepalive PING (1 s) on the same event
    // loop, so a PING that arrives with no GOAWAY before it shows the acknowledgement counted.
    Server server = start(100);
    try (RawHttp2Connection connection = RawHttp2Connection.open(server.getPort())) {
      RawHttp2Connection.Frame frame;
      do {
        frame = connection.readFrame();
        assertThat(frame).as("connection still open").isNotNull();
        assertThat(frame.type()).as("frame %s", frame).isNotEqualTo(GOAWAY);
      } while (frame.type() != PING);
    }
  }

  @Test
  void timeoutMustBePositive() {
    assertThatThrownBy(
            () -> NettyServerBuilder.forPort(0).http2SettingsAckTimeout(0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("http2SettingsAckTimeout");
  }

  private static String debugData(RawHttp2Connection.Frame goAway) {
    byte[] payload = goAway.payload();
    return new String(Arrays.copyOfRange(payload, 8, payload.length), UTF_8);
  }
}
