package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.ENHANCE_YOUR_CALM;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.UnreadResponsesTest.MESSAGE;
import static dev.tern.netty.hostile.UnreadResponsesTest.SLACK;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ServerBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.testing.Await;
import dev.tern.testing.LogCapture;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The per-connection bound on responses a client does not read, alone: the per-call bound is set
 * out of reach, so calls that each stay under it but together go over the connection's bound close
 * the connection with GOAWAY(ENHANCE_YOUR_CALM).
 */
class UnreadResponsesConnectionLimitTest extends HostileServerBase {
  private static final long PER_CONNECTION = 16L * 1024 * 1024;

  @Override
  ServerBuilder<?> serverBuilder() {
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .maxQueuedOutboundBytesPerStream(Integer.MAX_VALUE)
        .maxQueuedOutboundBytesPerConnection(PER_CONNECTION);
  }

  @Test
  @Tag("attack")
  void callsThatTogetherQueueTooMuchForAClientThatReadsNothingCloseItsConnection()
      throws Exception {
    int calls = 8;
    long before = HostileProbe.allocatedBytes();
    try (RawHttp2Connection raw = openRaw();
        LogCapture log = new LogCapture("dev.tern.netty.connections", Level.FINE)) {
      UnreadResponsesTest.closeAllStreamWindows(raw);
      UnreadResponsesTest.startFloodsTogether(
          raw, probe, calls, UnreadResponsesTest.FLOOD_MESSAGES / calls + ":" + MESSAGE);

      UnreadResponsesTest.awaitFloodsSent(probe, calls);
      assertThat(probe.floodPeakAllocated.get() - before)
          .as(
              "most bytes allocated while %d calls sent 64 MiB each to a client reading none",
              calls)
          .isLessThan(PER_CONNECTION + SLACK);
      List<Frame> frames = raw.awaitClose();
      assertThat(frames).noneMatch(frame -> frame.type() == RST_STREAM);
      Frame goAway = frames.stream().filter(f -> f.type() == GOAWAY).findFirst().orElseThrow();
      assertThat(goAway.errorCode()).as("%s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
      for (int i = 0; i < calls; i++) {
        Await.poll(probe.floodsCancelled, "handler " + i + " to see its call cancelled");
      }
      assertThat(UnreadResponsesTest.lines(log))
          .singleElement()
          .asString()
          .contains("cut off")
          .contains("more than " + PER_CONNECTION + " bytes of responses queued");
    }
    assertStillServingWellBehavedClient();
  }
}
