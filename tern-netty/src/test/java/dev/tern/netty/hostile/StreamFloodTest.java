package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.ENHANCE_YOUR_CALM;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_ACK;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.internal.server.ServerOptions;
import dev.tern.testing.Await;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A stream flood: one connection opens far more streams than any client needs, each a call that
 * waits for a request message that never comes, so that every one stays open. Without a default cap
 * on the calls one connection carries, each costs the server about 1.5 KB of heap for as long as
 * the peer likes (28 MB for 20,000 streams sent as 1.4 MB of frames); with it, the server refuses
 * the streams beyond the cap, and cuts off a peer that keeps opening them.
 */
@Tag("attack")
class StreamFloodTest extends HostileServerBase {
  private static final int CAP = ServerOptions.DEFAULT_MAX_CONCURRENT_CALLS_PER_CONNECTION;

  private static final int REFUSED_STREAM = 0x7;

  /** Streams the attacker opens: many times the cap. */
  private static final int STREAMS = 20 * CAP;

  /** What one open call may keep on the server's heap: its stream, call and headers, generously. */
  private static final long BYTES_PER_OPEN_CALL = 4 * 1024;

  @Test
  void streamsBeyondTheDefaultCapAreRefusedAndTheFloodIsCutOff() throws Exception {
    byte[] headers = headerBlock(grpcRequestHeaders("/tern.testing.Echo/Unary"));
    ExecutorService writer = cleanup.register(Executors.newSingleThreadExecutor());
    try (RawHttp2Connection raw = openRaw()) {
      // The server says how many streams it takes before any of them is opened.
      int advertised = raw.awaitPeerSetting(0x3, Integer.MAX_VALUE); // MAX_CONCURRENT_STREAMS
      Future<Integer> written =
          writer.submit(
              () -> {
                int streams = 0;
                for (int id = 1; streams < STREAMS && !raw.writeFailed(); streams++, id += 2) {
                  raw.writeFrame(HEADERS, FLAG_END_HEADERS, id, headers);
                }
                return streams;
              });
      written.get(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
      // The PING's ACK comes after the server has taken every stream; or the connection ends.
      raw.writePing(42);
      List<Frame> frames = new ArrayList<>();
      for (Frame frame = raw.readFrame(); frame != null; frame = raw.readFrame()) {
        if (frame.type() == PING && (frame.flags() & FLAG_ACK) != 0) {
          break;
        }
        frames.add(frame);
      }
      // Whatever the server keeps for the open calls, it holds now.
      memory.assertRetainedHeapGrowthAtMost(
          CAP * BYTES_PER_OPEN_CALL, "maxConcurrentCallsPerConnection's default");
      frames.addAll(raw.awaitClose());
      Frame goAway = frames.stream().filter(f -> f.type() == GOAWAY).findFirst().orElse(null);

      assertThat(advertised).isEqualTo(CAP);
      assertThat(frames)
          .as("streams beyond the cap refused")
          .anyMatch(f -> f.type() == RST_STREAM && f.errorCode() == REFUSED_STREAM);
      // Streams refused beyond the cap count as resets the peer provoked (MadeYouReset), and the
      // connection is closed (awaitClose fails if it stays open) with GOAWAY(ENHANCE_YOUR_CALM).
      // The peer may not get to read that GOAWAY: the server closes while the peer's flood is
      // still unread, and the TCP reset that makes can discard what the peer had not yet read.
      if (goAway != null) {
        assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
      }
    }
    assertThat(callsStartedByTest()).isLessThanOrEqualTo(CAP);
    assertMemoryBounded(CAP * BYTES_PER_OPEN_CALL, "maxConcurrentCallsPerConnection's default");
    assertStillServingWellBehavedClient();
  }
}
