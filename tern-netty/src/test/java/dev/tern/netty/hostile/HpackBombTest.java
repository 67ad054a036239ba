package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.COMPRESSION_ERROR;
import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_ACK;
import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.PING;
import static dev.tern.netty.hostile.RawHttp2Connection.SETTINGS;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static dev.tern.netty.hostile.RawHttp2Connection.huffmanLiteral;
import static dev.tern.netty.hostile.RawHttp2Connection.indexedField;
import static dev.tern.netty.hostile.RawHttp2Connection.indexedLiteral;
import static dev.tern.netty.hostile.RawHttp2Connection.tableSizeUpdate;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.netty.hostile.RawHttp2Connection.StreamEnd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * HPACK bombs (RFC 7541 7.3): header blocks that are small on the wire and huge once decoded, or
 * that abuse the dynamic table and Huffman coding. The server must stop at its metadata limit
 * (counted on the decoded size) without materialising the headers, end only the offending stream
 * where the connection's HPACK state survives, end the connection with COMPRESSION_ERROR where it
 * does not, and go on serving everyone else.
 */
@Tag("attack")
class HpackBombTest extends HostileServerBase {
  private static final String ECHO_PATH = "/tern.testing.Echo/Unary";

  /** The default maxInboundMetadataSize. */
  private static final int METADATA_LIMIT = 8 * 1024;

  /** The largest entry the server's dynamic table (4,096 bytes, HPACK's default) takes. */
  private static final int ENTRY_VALUE_BYTES = 4096 - 32 - "x-bomb".length();

  /** How many times one bomb references its table entry: 1 byte each, 4 KiB each decoded. */
  private static final int REFERENCES = 10_000;

  /** Streams that each carry a bomb. */
  private static final int BOMBED_STREAMS = 50;

  @Test
  void dynamicTableReferenceBombsEndTheirStreamsAsOversizedMetadata() throws IOException {
    byte[] bomb = referenceBomb();
    long decoded = (long) REFERENCES * (ENTRY_VALUE_BYTES + "x-bomb".length() + 32);
    assertThat(bomb.length).as("encoded").isLessThan(METADATA_LIMIT * 2);
    assertThat(decoded).as("decoded").isGreaterThan(2_000L * bomb.length);
    try (RawHttp2Connection raw = openRaw()) {
      for (int i = 0; i < BOMBED_STREAMS; i++) {
        raw.writeHeaderBlock(1 + 2 * i, true, bomb);
      }
      List<StreamEnd> ends = raw.awaitStreamEnds(BOMBED_STREAMS);
      for (int i = 0; i < BOMBED_STREAMS; i++) {
        StreamEnd end = ends.get(i);

        // The header list is over the limit: this call fails, HTTP 431 with RESOURCE_EXHAUSTED.
        assertThat(end.headers())
            .as("stream %d: frames %s", 1 + 2 * i, end.frames())
            .containsEntry(":status", "431")
            .containsEntry("grpc-status", "8");
      }
      assertConnectionStillOpen(raw);
    }
    assertThat(callsStartedByTest()).isZero();
    // Had the server materialised one decoded bomb (40 MB) in buffers, this would show it.
    assertMemoryBounded(
        (long) BOMBED_STREAMS * bomb.length, "the metadata limit, counted on the decoded size");
    assertStillServingWellBehavedClient();
  }

  @Test
  void tableSizeUpdateAboveTheAdvertisedSizeIsACompressionError() throws IOException {
    // The server never advertised more than HPACK's default 4,096 bytes of table.
    assertCompressionError(
        concat(tableSizeUpdate(1L << 30), headerBlock(grpcRequestHeaders(ECHO_PATH))));
  }

  @Test
  void tableSizeUpdateAfterTheFirstFieldIsACompressionError() throws IOException {
    // RFC 7541 4.2: a size update must come at the beginning of a header block.
    assertCompressionError(concat(headerBlock(grpcRequestHeaders(ECHO_PATH)), tableSizeUpdate(0)));
  }

  @Test
  void referenceToAnEntryNeverInsertedIsACompressionError() throws IOException {
    // The dynamic table is empty: index 62 names nothing.
    assertCompressionError(concat(headerBlock(grpcRequestHeaders(ECHO_PATH)), indexedField(62)));
  }

  @Test
  void huffmanGarbageIsACompressionError() throws IOException {
    // Thirty-two 1 bits hold the 30-bit EOS symbol, which a Huffman-coded string must not contain
    // (RFC 7541 5.2); a long run of them is garbage no decoder can accept.
    byte[] garbage = new byte[4096];
    Arrays.fill(garbage, (byte) 0xff);
    assertCompressionError(
        concat(headerBlock(grpcRequestHeaders(ECHO_PATH)), huffmanLiteral("x-garbage", garbage)));
  }

  @Test
  void huffmanStringWithBadPaddingIsACompressionError() throws IOException {
    // '0' is the 5-bit code 00000; padding must be the high bits of EOS (all 1s), not 0s.
    byte[] badPadding = {0x00};
    assertCompressionError(
        concat(
            headerBlock(grpcRequestHeaders(ECHO_PATH)), huffmanLiteral("x-padding", badPadding)));
  }

  @Test
  void peerAllowingAHugeHeaderTableDoesNotGrowTheServersEncoderTable() throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      // SETTINGS_HEADER_TABLE_SIZE of 1 GiB would let the server's HPACK encoder keep that much of
      // the headers it sends, here a distinct 3 KB grpc-message per call. The server announces
      // the table size it uses in its header blocks; this side decodes them with a table of
      // HPACK's default 4,096 bytes, and fails on any larger announcement.
      raw.writeFrame(
          SETTINGS, 0, 0, ByteBuffer.allocate(6).putShort((short) 0x1).putInt(1 << 30).array());
      for (int i = 0; i < BOMBED_STREAMS; i++) {
        String path = "/x.Unknown/m" + i + "a".repeat(3_000);
        raw.writeHeaders(1 + 2 * i, true, grpcRequestHeaders(path));
      }
      List<StreamEnd> ends = raw.awaitStreamEnds(BOMBED_STREAMS);
      for (int i = 0; i < BOMBED_STREAMS; i++) {
        StreamEnd end = ends.get(i);

        assertThat(end.headers())
            .as("stream %d: frames %s", 1 + 2 * i, end.frames())
            .containsEntry("grpc-status", "12");
      }
      assertConnectionStillOpen(raw);
    }
    assertStillServingWellBehavedClient();
  }

  /**
   * A request header block that inserts one entry as large as the table allows, then references it
   * {@link #REFERENCES} times.
   */
  private static byte[] referenceBomb() {
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    block.writeBytes(headerBlock(grpcRequestHeaders(ECHO_PATH)));
    block.writeBytes(indexedLiteral("x-bomb", "b".repeat(ENTRY_VALUE_BYTES)));
    byte[] reference = indexedField(62);
    for (int i = 0; i < REFERENCES; i++) {
      block.writeBytes(reference);
    }
    return block.toByteArray();
  }

  /**
   * Sends {@code block} as a request and expects the connection to end with GOAWAY
   * (COMPRESSION_ERROR): the HPACK state it shares with the server is lost (RFC 9113 4.3).
   */
  private void assertCompressionError(byte[] block) throws IOException {
    try (RawHttp2Connection raw = openRaw()) {
      raw.writeHeaderBlock(1, true, block);
      List<Frame> frames = raw.awaitClose();
      Frame goAway = frames.stream().filter(f -> f.type() == GOAWAY).findFirst().orElse(null);

      assertThat(goAway).as("GOAWAY before closing; frames %s", frames).isNotNull();
      assertThat(goAway.errorCode()).as("GOAWAY %s", goAway).isEqualTo(COMPRESSION_ERROR);
    }
    assertThat(callsStartedByTest()).isZero();
    assertMemoryBounded(block.length, "one header block");
    assertStillServingWellBehavedClient();
  }

  /** Sends a PING and expects its acknowledgement, not a GOAWAY or the end of the connection. */
  static void assertConnectionStillOpen(RawHttp2Connection raw) throws IOException {
    raw.writePing(42);
    Frame answer = raw.readFrame();
    while (answer != null
        && answer.type() != GOAWAY
        && !(answer.type() == PING && (answer.flags() & FLAG_ACK) != 0)) {
      answer = raw.readFrame();
    }
    assertThat(answer).as("the PING's ACK, the connection still open").isNotNull();
    assertThat(answer.type()).as("%s", answer).isEqualTo(PING);
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }
}
