package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.HpackBombTest.assertConnectionStillOpen;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import dev.tern.testing.Await;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Header and metadata floods against the Netty server: thousands of small headers in one block,
 * many blocks at the limit on parallel streams, huge binary values, repeated keys and trailers on
 * client streams. Each oversized header list ends its own stream with HTTP 431 and
 * RESOURCE_EXHAUSTED (the connection, whose HPACK state is intact, stays open) unless its encoded
 * block passes the connection's threshold; what the server keeps is bounded by the metadata limit
 * per stream; and the well-behaved client is served throughout.
 */
@Tag("attack")
class HeaderFloodTest extends HostileServerBase {
  private static final String ECHO_PATH = "/tern.testing.Echo/Unary";
  private static final String HANG_PATH = "/" + HostileProbe.HANG.getFullMethodName();

  /** The default maxInboundMetadataSize. */
  private static final int METADATA_LIMIT = 8 * 1024;

  /**
   * How much encoded header block the server reads before it gives up on the connection: the limit
   * plus at least 16 KiB.
   */
  private static final int GOAWAY_THRESHOLD = METADATA_LIMIT + 16 * 1024;

  /** Streams opened at once by the parallel floods. */
  private static final int STREAMS = 100;

  @Test
  void thousandsOfDistinctSmallHeadersEndTheStreamAsOversizedMetadata() throws IOException {
    // 1,500 fields of 40 bytes each as HTTP/2 counts them (32 of overhead): 60 KB of header list
    // in a block of about 17 KB, under the connection's threshold.
    byte[] block = headerBlock(withFiller(grpcRequestHeaders(ECHO_PATH), 1_500, "h", "v"));
    assertThat(block.length).isLessThan(GOAWAY_THRESHOLD);
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaderBlock(1, true, block);
      assertOversizedMetadata(raw.awaitStreamEnd(1));
      assertConnectionStillOpen(raw);
    }
    assertThat(callsStartedByTest()).isZero();
    assertMemoryBounded(GOAWAY_THRESHOLD, "the header block's GOAWAY threshold");
    assertStillServingWellBehavedClient();
  }

  @Test
  void smallHeadersBeyondTheConnectionThresholdEndTheConnection() throws IOException {
    byte[] block = headerBlock(withFiller(grpcRequestHeaders(ECHO_PATH), 6_000, "h", "v"));
    assertThat(block.length).isGreaterThan(2 * GOAWAY_THRESHOLD);
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaderBlock(1, true, block);
      List<Frame> frames = raw.awaitClose();
      Frame goAway = frames.stream().filter(f -> f.type() == GOAWAY).findFirst().orElse(null);

      assertThat(goAway).as("GOAWAY before closing; frames %s", frames).isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isNotZero();
    }
    assertThat(callsStartedByTest()).isZero();
    assertMemoryBounded(GOAWAY_THRESHOLD, "the header block's GOAWAY threshold");
    assertStillServingWellBehavedClient();
  }

  @Test
  void manyRepeatedKeysEndTheStreamAsOversizedMetadata() throws IOException {
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    for (int i = 0; i < 1_000; i++) {
      headers.add(new String[] {"x-repeated", "a"});
    }
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaders(1, true, headers);
      assertOversizedMetadata(raw.awaitStreamEnd(1));
      assertConnectionStillOpen(raw);
    }
    assertThat(callsStartedByTest()).isZero();
    assertMemoryBounded(GOAWAY_THRESHOLD, "the header block's GOAWAY threshold");
    assertStillServingWellBehavedClient();
  }

  @Test
  void hugeBinaryValuesEndTheirStreamsAsOversizedMetadata() throws IOException {
    // 20 KB of base64 in one -bin value on each stream: over the limit, under the threshold.
    List<String[]> headers = grpcRequestHeaders(ECHO_PATH);
    headers.add(new String[] {"x-payload-bin", "QUJD".repeat(5_000)});
    byte[] block = headerBlock(headers);
    try (RawHttp2Connection raw = openRaw()) {
      for (int i = 0; i < STREAMS; i++) {
        raw.writeHeaderBlock(1 + 2 * i, true, block);
      }
      for (StreamEnd end : raw.awaitStreamEnds(STREAMS)) {
        assertOversizedMetadata(end);
      }
      assertConnectionStillOpen(raw);
    }
    assertThat(callsStartedByTest()).isZero();
    assertMemoryBounded(GOAWAY_THRESHOLD, "the header block's GOAWAY threshold");
    assertStillServingWellBehavedClient();
  }

  @Test
  void parallelStreamsWithMetadataAtTheLimitKeepOnlyWhatTheLimitAllows() throws IOException {
    // Seven 1,000-byte values: about 7.5 KB of header list, just under the limit, on each stream
    // of a call that never ends, so that the server holds every one at once.
    List<String[]> headers = grpcRequestHeaders(HANG_PATH);
    for (int i = 0; i < 7; i++) {
      headers.add(new String[] {"x-big-" + i, Integer.toString(i).repeat(1_000)});
    }
    byte[] block = headerBlock(headers);
    try (RawHttp2Connection raw = openRaw()) {
      for (int i = 0; i < STREAMS; i++) {
        raw.writeHeaderBlock(1 + 2 * i, false, block);
      }
      for (int i = 0; i < STREAMS; i++) {
        Await.poll(probe.hangsStarted, "call " + i + " to reach the server");
      }

      // The calls are open: what the server (and the probe, which keeps each call's Metadata)
      // holds for them is held now. A few copies of each header list at most.
      memory.assertRetainedHeapGrowthAtMost(
          (long) STREAMS * METADATA_LIMIT * 4, "the metadata limit on each open call");
      assertConnectionStillOpen(raw);
    }
    assertThat(callsStartedByTest()).isEqualTo(STREAMS);
    assertMemoryBounded((long) STREAMS * METADATA_LIMIT, "the metadata limit on each stream");
    assertStillServingWellBehavedClient();
  }

  @Test
  void oversizedTrailersFromClientsEndTheirStreams() throws IOException {
    byte[] trailers = headerBlock(withFiller(new ArrayList<>(), 1_000, "t", "v"));
    byte[] message = grpcMessage(0, "before trailers".getBytes(UTF_8));
    try (RawHttp2Connection raw = openRaw()) {
      for (int i = 0; i < STREAMS; i++) {
        int streamId = 1 + 2 * i;
        raw.writeHeaders(streamId, false, grpcRequestHeaders(HANG_PATH));
        raw.writeData(streamId, false, message);
        raw.writeHeaderBlock(streamId, true, trailers);
      }
      List<StreamEnd> ends = raw.awaitStreamEnds(STREAMS);
      for (int i = 0; i < STREAMS; i++) {
        StreamEnd end = ends.get(i);

        // The call had started: its stream is reset, or ended with an error status.
        assertThat(end.last()).as("stream %d: frames %s", 1 + 2 * i, end.frames()).isNotNull();
        if (!end.reset()) {
          assertThat(end.headers().get("grpc-status")).isNotEqualTo("0");
        }
      }
      assertConnectionStillOpen(raw);
    }
    assertMemoryBounded((long) STREAMS * METADATA_LIMIT, "the metadata limit on each stream");
    assertStillServingWellBehavedClient();
  }

  @Test
  void trailersAtTheLimitOnManyClientStreamsAreIgnored() throws IOException {
    // Trailers a client has no reason to send, just under the limit, after each unary request.
    byte[] trailers = headerBlock(withFiller(new ArrayList<>(), 150, "t", "v".repeat(10)));
    byte[] message = grpcMessage(0, "with trailers".getBytes(UTF_8));
    try (RawHttp2Connection raw = openRaw()) {
      for (int i = 0; i < STREAMS; i++) {
        int streamId = 1 + 2 * i;
        raw.writeHeaders(streamId, false, grpcRequestHeaders(ECHO_PATH));
        raw.writeData(streamId, false, message);
        raw.writeHeaderBlock(streamId, true, trailers);
      }
      List<StreamEnd> ends = raw.awaitStreamEnds(STREAMS);
      for (int i = 0; i < STREAMS; i++) {
        StreamEnd end = ends.get(i);

        assertThat(end.headers())
            .as("stream %d: frames %s", 1 + 2 * i, end.frames())
            .containsEntry("grpc-status", "0");
        assertThat(end.data()).isEqualTo(message);
      }
      assertConnectionStillOpen(raw);
    }
    assertMemoryBounded((long) STREAMS * METADATA_LIMIT, "the metadata limit on each stream");
    assertStillServingWellBehavedClient();
  }

  /** {@code headers} plus {@code count} fields {@code prefix-i: value}, distinct by name. */
  private static List<String[]> withFiller(
      List<String[]> headers, int count, String prefix, String value) {
    for (int i = 0; i < count; i++) {
      headers.add(new String[] {prefix + i, value});
    }
    return headers;
  }

  private static void assertOversizedMetadata(StreamEnd end) {
    assertThat(end.headers())
        .as("frames %s", end.frames())
        .containsEntry(":status", "431")
        .containsEntry("grpc-status", "8");
    assertThat(end.frames()).noneMatch(f -> f.type() == GOAWAY);
    assertThat(end.headers().get("grpc-message")).contains(Integer.toString(METADATA_LIMIT));
  }
}
