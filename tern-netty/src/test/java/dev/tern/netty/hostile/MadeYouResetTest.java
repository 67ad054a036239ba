package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.ENHANCE_YOUR_CALM;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_ACK;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.RST_STREAM;
import static dev.tern.netty.hostile.RawHttp2Connection.WINDOW_UPDATE;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.internal.server.ServerOptions;
import dev.tern.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * "MadeYouReset" (CVE-2025-8671): a client that breaks each stream's rules on purpose, so that the
 * server resets the stream, is cut off with GOAWAY(ENHANCE_YOUR_CALM) after about the reset limit,
 * while streams the server resets for its own reasons (deadlines) do not count.
 */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class MadeYouResetTest extends HostileServerBase {
  private static final int LIMIT = ServerOptions.DEFAULT_MAX_RST_FRAMES_PER_WINDOW;

  /** Streams the attacker opens: several times the limit. */
  private static final int STREAMS = 5 * LIMIT;

  @Test
  @Tag("attack")
  void streamsTheServerMustResetAreCutOffWithGoAwayEnhanceYourCalm() throws Exception {
    try (RawHttp2Connection raw = openRaw()) {
      byte[] headers = headerBlock(grpcRequestHeaders("/" + HostileProbe.HANG.getFullMethodName()));
      // WINDOW_UPDATE with an increment of 0 on an open stream: a stream error (RFC 9113 6.9).
      byte[] zeroIncrement = {0, 0, 0, 0};
      ExecutorService writer = cleanup.register(Executors.newSingleThreadExecutor());
      Future<Integer> written =
          writer.submit(
              () -> {
                int streams = 0;
                try {
                  for (int id = 1; streams < STREAMS; streams++, id += 2) {
                    raw.writeFrame(HEADERS, FLAG_END_HEADERS, id, headers);
                    raw.writeFrame(WINDOW_UPDATE, 0, id, zeroIncrement);
                  }
                } catch (IOException e) {
                  // The server closed the connection under the attack.
                }
                return streams;
              });
      List<Frame> frames = raw.awaitClose();
      written.get(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);

      long resets = frames.stream().filter(f -> f.type() == RST_STREAM).count();
      Frame goAway = frames.stream().filter(f -> f.type() == GOAWAY).findFirst().orElse(null);
      assertThat(goAway)
          .as("GOAWAY expected after %d server-sent resets; frames ended %s", resets, tail(frames))
          .isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
      assertThat(resets).isGreaterThanOrEqualTo(LIMIT).isLessThanOrEqualTo(LIMIT + 1);
    }
    // Each stream's state (and the HANG call it started) is gone once the connection is.
    assertMemoryBounded(LIMIT * 4L * 1024, "maxRstFramesPerWindow");
    assertStillServingWellBehavedClient();
  }

  @Test
  @Tag("attack")
  void goAwayReachesAClientThatReceivesSlowlyAndStillSends() throws Exception {
    // A receive window of a few KiB: the server's frames wait in its socket while the client
    // floods.
    try (RawHttp2Connection raw = RawHttp2Connection.openWithReceiveBuffer(server.getPort(), 1)) {
      // 64 KiB of responses on stream 1 that the client reads only after the attack.
      raw.writeHeaders(1, false, grpcRequestHeaders("/" + HostileProbe.BULK.getFullMethodName()));
      raw.writeData(1, true, grpcMessage(0, "4:16000".getBytes(StandardCharsets.UTF_8)));
      byte[] headers = headerBlock(grpcRequestHeaders("/" + HostileProbe.HANG.getFullMethodName()));
      ExecutorService writer = cleanup.register(Executors.newSingleThreadExecutor());
      Future<?> flood =
          writer.submit(
              () -> {
                try {
                  for (int i = 0, id = 3; i < STREAMS; i++, id += 2) {
                    raw.writeFrame(HEADERS, FLAG_END_HEADERS, id, headers);
                    raw.writeFrame(WINDOW_UPDATE, 0, id, new byte[4]);
                  }
                } catch (IOException e) {
                  // The server closed the connection under the attack.
                }
                return null;
              });
      List<Frame> frames = raw.awaitClose();
      flood.get(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);

      // Closing at once with the flood unread would have made the kernel reset the connection
      // and drop the frames still queued for this client, the GOAWAY last among them.
      Frame goAway = frames.stream().filter(f -> f.type() == GOAWAY).findFirst().orElse(null);
      assertThat(goAway).as("GOAWAY expected; frames ended %s", tail(frames)).isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(ENHANCE_YOUR_CALM);
      assertThat(frames.stream().filter(f -> f.type() == RST_STREAM).count())
          .isGreaterThanOrEqualTo(LIMIT);
    }
    assertStillServingWellBehavedClient();
  }

  @Test
  void streamsTheServerResetsForDeadlinesDoNotCount() throws Exception {
    try (RawHttp2Connection raw = openRaw()) {
      List<String[]> request = grpcRequestHeaders("/" + HostileProbe.HANG.getFullMethodName());
      request.add(new String[] {"grpc-timeout", "1m"});
      byte[] headers = headerBlock(request);
      int calls = 2 * LIMIT;
      int id = 1;
      for (int i = 0; i < calls; i++, id += 2) {
        raw.writeFrame(HEADERS, FLAG_END_HEADERS, id, headers);
      }
      // Every call ends when its deadline passes, the server resetting or ending its stream.
      Set<Integer> ended = new HashSet<>();
      while (ended.size() < calls) {
        Frame frame = raw.readFrame();
        assertThat(frame).as("streams ended before the connection: %d", ended.size()).isNotNull();
        assertThat(frame.type()).as("%s", frame).isNotEqualTo(GOAWAY);
        if (frame.type() == RST_STREAM || (frame.type() == HEADERS && frame.endStream())) {
          ended.add(frame.streamId());
        }
      }
      raw.writePing(42);
      Frame answer = raw.readFrame();
      while (answer != null && answer.type() != GOAWAY && !isPingAck(answer)) {
        answer = raw.readFrame();
      }
      assertThat(answer).as("the PING's ACK, the connection still open").isNotNull();
      assertThat(answer.type()).as("%s", answer).isEqualTo(PING);
    }
    assertStillServingWellBehavedClient();
  }

  private static boolean isPingAck(Frame frame) {
    return frame.type() == PING && (frame.flags() & FLAG_ACK) != 0;
  }

  private static List<Frame> tail(List<Frame> frames) {
    return frames.subList(Math.max(0, frames.size() - 3), frames.size());
  }
}
