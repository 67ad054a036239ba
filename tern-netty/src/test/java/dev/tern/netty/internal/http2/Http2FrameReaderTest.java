package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.ENHANCE_YOUR_CALM;
import static dev.tern.netty.internal.http2.Http2FrameException.FLOW_CONTROL_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.FRAME_SIZE_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.PROTOCOL_ERROR;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each frame a peer must not send is refused with the error RFC 9113 names, and its reason. */
class Http2FrameReaderTest {
  private final TrackingAllocator alloc = new TrackingAllocator();
  private Http2FrameReader reader = new Http2FrameReader(1024);
  private final RecordingListener listener = new RecordingListener();

  @AfterEach
  void everyBufferReleased() {
    reader.close();
    alloc.assertAllReleased();
  }

  /** A frame: header fields then payload, given in hex. */
  static String frame(int length, int type, int flags, int streamId, String payloadHex) {
    return String.format("%06x%02x%02x%08x", length, type, flags, streamId)
        + payloadHex.replace(" ", "");
  }

  static String frame(int type, int flags, int streamId, String payloadHex) {
    return frame(payloadHex.replace(" ", "").length() / 2, type, flags, streamId, payloadHex);
  }

  private void read(String hex) throws Http2FrameException {
    byte[] bytes = ByteBufUtil.decodeHexDump(hex);
    ByteBuf chunk = alloc.of(bytes, 0, bytes.length);
    try {
      while (chunk.isReadable()) {
        reader.read(chunk, listener);
      }
    } finally {
      chunk.release();
    }
  }

  /** Reads {@code hex} with a new reader (one connection error ends a reader). */
  private Http2FrameException refused(String hex) {
    reader.close();
    reader = new Http2FrameReader(1024);
    try {
      read(hex);
    } catch (Http2FrameException e) {
      return e;
    }
    throw new AssertionError("not refused: " + hex);
  }

  private void assertConnectionError(String hex, long code, String reason) {
    Http2FrameException e = refused(hex);
    assertThat(e).hasMessage(reason);
    assertThat(e.connectionError()).as("connection error").isTrue();
    assertThat(e.errorCode()).as("error code").isEqualTo(code);
  }

  @Test
  void frameOverMaxFrameSizeIsRefusedFromItsHeader() throws Http2FrameException {
    assertConnectionError(
        frame(16_385, 0, 0, 1, ""),
        FRAME_SIZE_ERROR,
        "DATA frame of 16385 bytes over SETTINGS_MAX_FRAME_SIZE 16384");
    assertThat(alloc.allocations()).as("nothing gathered for it").isEqualTo(1);
  }

  @Test
  void largerFramesOnceSettingsAllowThem() throws Http2FrameException {
    reader.setMaxFrameSize(20_000);
    read(frame(0, 0, 1, "00".repeat(20_000)));
    assertThat(listener.events).singleElement().asString().startsWith("DATA 1 [20000 bytes");
  }

  @Test
  void streamZeroRules() {
    assertConnectionError(frame(0, 0, 0, "00"), PROTOCOL_ERROR, "DATA frame on stream 0");
    assertConnectionError(frame(1, 4, 0, "82"), PROTOCOL_ERROR, "HEADERS frame on stream 0");
    assertConnectionError(
        frame(2, 0, 0, "0000000310"), PROTOCOL_ERROR, "PRIORITY frame on stream 0");
    assertConnectionError(
        frame(3, 0, 0, "00000008"), PROTOCOL_ERROR, "RST_STREAM frame on stream 0");
    assertConnectionError(frame(9, 4, 0, "82"), PROTOCOL_ERROR, "CONTINUATION frame on stream 0");
  }

  @Test
  void connectionFramesOnAStream() {
    assertConnectionError(frame(4, 0, 1, ""), PROTOCOL_ERROR, "SETTINGS frame on stream 1, not 0");
    assertConnectionError(
        frame(6, 0, 3, "00".repeat(8)), PROTOCOL_ERROR, "PING frame on stream 3, not 0");
    assertConnectionError(
        frame(7, 0, 5, "00".repeat(8)), PROTOCOL_ERROR, "GOAWAY frame on stream 5, not 0");
  }

  @Test
  void fixedLengths() {
    assertConnectionError(
        frame(3, 0, 1, "000008"), FRAME_SIZE_ERROR, "RST_STREAM frame of 3 bytes, not 4");
    assertConnectionError(
        frame(6, 0, 0, "00".repeat(7)), FRAME_SIZE_ERROR, "PING frame of 7 bytes, not 8");
    assertConnectionError(
        frame(6, 1, 0, "00".repeat(9)), FRAME_SIZE_ERROR, "PING frame of 9 bytes, not 8");
    assertConnectionError(
        frame(7, 0, 0, "00".repeat(7)), FRAME_SIZE_ERROR, "GOAWAY frame of 7 bytes, under 8");
    assertConnectionError(
        frame(8, 0, 1, "000001"), FRAME_SIZE_ERROR, "WINDOW_UPDATE frame of 3 bytes, not 4");
    assertConnectionError(frame(0, 0x8, 1, ""), FRAME_SIZE_ERROR, "DATA frame of 0 bytes, under 1");
    assertConnectionError(
        frame(1, 0x24, 1, "00000003"), FRAME_SIZE_ERROR, "HEADERS frame of 4 bytes, under 5");
  }

  @Test
  void settingsLengthsAndValues() {
    assertConnectionError(
        frame(4, 0, 0, "0001000000"),
        FRAME_SIZE_ERROR,
        "SETTINGS payload of 5 bytes, not a multiple of 6");
    assertConnectionError(
        frame(4, 1, 0, "000100000000"),
        FRAME_SIZE_ERROR,
        "SETTINGS acknowledgement with a 6-byte payload");
    assertConnectionError(
        frame(4, 0, 0, "000200000002"), PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH 2, not 0 or 1");
    assertConnectionError(
        frame(4, 0, 0, "000480000000"),
        FLOW_CONTROL_ERROR,
        "SETTINGS_INITIAL_WINDOW_SIZE 2147483648 over 2^31-1");
    assertConnectionError(
        frame(4, 0, 0, "000500003fff"),
        PROTOCOL_ERROR,
        "SETTINGS_MAX_FRAME_SIZE 16383 outside 16384 to 2^24-1");
  }

  @Test
  void unknownSettingsAreIgnored() throws Http2FrameException {
    read(frame(4, 0, 0, "00ff00000001 000300000064"));
    assertThat(listener.events).containsExactly("SETTINGS Http2Settings{3=100}");
  }

  @Test
  void paddingBeyondThePayload() {
    assertConnectionError(
        frame(0, 0x8, 1, "03 6162"),
        PROTOCOL_ERROR,
        "DATA frame's pad length 3 beyond its 3-byte payload");
    assertConnectionError(
        frame(1, 0x2c, 1, "01 80000003 10"),
        PROTOCOL_ERROR,
        "HEADERS frame's pad length 1 beyond its 6-byte payload");
  }

  @Test
  void paddedDataCountsItsPaddingForFlowControl() throws Http2FrameException {
    read(frame(0, 0x9, 1, "02 6869 0000") + frame(0, 0x8, 1, "00"));
    assertThat(listener.events)
        .containsExactly("DATA 1 [6869] padding=3 END_STREAM", "DATA 1 [] padding=1");
  }

  @Test
  void headersWithPriorityAndPadding() throws Http2FrameException {
    read(frame(1, 0x2d, 3, "01 80000001 0f 8286 00"));
    assertThat(listener.events)
        .containsExactly("PRIORITY 3 on 1 exclusive 16", "HEADERS 3 [8286] END_STREAM");
  }

  @Test
  void priorityErrorsAreStreamErrorsAndReadingGoesOn() throws Http2FrameException {
    byte[] bytes =
        ByteBufUtil.decodeHexDump(frame(2, 0, 3, "00000001") + frame(6, 0, 0, "00".repeat(8)));
    ByteBuf chunk = alloc.of(bytes, 0, bytes.length);
    Http2FrameException e;
    try {
      e = refusedOnce(chunk);
      reader.read(chunk, listener); // the rest of the chunk
    } finally {
      chunk.release();
    }
    assertThat(e).hasMessage("PRIORITY frame of 4 bytes, not 5");
    assertThat(e.connectionError()).isFalse();
    assertThat(e.streamId()).isEqualTo(3);
    assertThat(e.errorCode()).isEqualTo(FRAME_SIZE_ERROR);
    assertThat(listener.events).as("the PING after it").containsExactly("PING 0");

    Http2FrameException e2 = refused(frame(2, 0, 5, "0000000510"));
    assertThat(e2).hasMessage("stream 5 depends on itself");
    assertThat(e2.streamId()).isEqualTo(5);
    assertThat(e2.errorCode()).isEqualTo(PROTOCOL_ERROR);
  }

  private Http2FrameException refusedOnce(ByteBuf chunk) {
    try {
      reader.read(chunk, listener);
    } catch (Http2FrameException e) {
      return e;
    }
    throw new AssertionError("not refused");
  }

  @Test
  void windowUpdateOfZero() {
    assertConnectionError(
        frame(8, 0, 0, "00000000"),
        PROTOCOL_ERROR,
        "WINDOW_UPDATE with an increment of 0 on stream 0");
    Http2FrameException e = refused(frame(8, 0, 7, "80000000"));
    assertThat(e).hasMessage("WINDOW_UPDATE with an increment of 0 on stream 7");
    assertThat(e.connectionError()).isFalse();
    assertThat(e.streamId()).isEqualTo(7);
  }

  @Test
  void continuationSequencing() {
    assertConnectionError(
        frame(9, 4, 1, "82"),
        PROTOCOL_ERROR,
        "CONTINUATION frame on stream 1 without an open header block");
    assertConnectionError(
        frame(1, 0, 1, "82") + frame(0, 0, 1, "00"),
        PROTOCOL_ERROR,
        "DATA frame on stream 1 inside the header block of stream 1 (only CONTINUATION may follow"
            + " until END_HEADERS)");
  }

  @Test
  void continuationOnAnotherStream() {
    assertConnectionError(
        frame(1, 0, 1, "82") + frame(9, 4, 3, "86"),
        PROTOCOL_ERROR,
        "CONTINUATION frame on stream 3 inside the header block of stream 1 (only CONTINUATION"
            + " may follow until END_HEADERS)");
  }

  @Test
  void headerBlockInFragments() throws Http2FrameException {
    read(frame(1, 1, 1, "82") + frame(9, 0, 1, "86") + frame(9, 0, 1, "") + frame(9, 4, 1, "84"));
    assertThat(listener.events).containsExactly("HEADERS 1 [828684] END_STREAM");
  }

  @Test
  void continuationFloodIsRefusedAtTheFrameThatCrossesTheCap() {
    // Cap 1,024 bytes: 100 + 900 fit, the next CONTINUATION's header says 100 more.
    String start = frame(1, 0, 1, "00".repeat(100)) + frame(9, 0, 1, "00".repeat(900));
    assertConnectionError(
        start + frame(100, 9, 0, 1, ""),
        ENHANCE_YOUR_CALM,
        "header block of stream 1 over 1024 bytes");
  }

  @Test
  void emptyContinuationFloodIsRefused() {
    assertConnectionError(
        frame(1, 0, 1, "82") + frame(9, 0, 1, "").repeat(40),
        ENHANCE_YOUR_CALM,
        "header block of stream 1 in more than 32 CONTINUATION frames");
  }

  @Test
  void oversizedSingleHeadersFrame() {
    assertConnectionError(
        frame(1, 4, 1, "00".repeat(1025)),
        ENHANCE_YOUR_CALM,
        "header block of stream 1 over 1024 bytes");
  }

  @Test
  void pushPromiseIsRefused() {
    assertConnectionError(
        frame(5, 4, 1, "00000002 82"),
        PROTOCOL_ERROR,
        "PUSH_PROMISE on stream 1: push is disabled");
  }

  @Test
  void unknownFrameTypesAreSkipped() throws Http2FrameException {
    read(frame(0xfa, 0xff, 9, "00".repeat(300)) + frame(6, 0, 0, "0000000000000001"));
    assertThat(listener.events).containsExactly("PING 1");
  }

  @Test
  void reservedBitIsIgnored() throws Http2FrameException {
    read(frame(3, 0, 0x8000_0003, "00000008"));
    assertThat(listener.events).containsExactly("RST_STREAM 3 8");
  }

  @Test
  void afterAConnectionErrorEverythingIsDiscarded() throws Http2FrameException {
    refused(frame(1, 0, 1, "8286") + frame(0, 0, 1, "00"));
    read(frame(6, 0, 0, "0000000000000001"));
    assertThat(listener.events).isEmpty();
  }
}
