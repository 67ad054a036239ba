package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every frame type written by {@link Http2FrameWriter} reads back through {@link Http2FrameReader},
 * whole, one byte at a time and in random chunks, with every buffer released.
 */
class Http2FrameRoundTripTest {
  private static final byte[] BIG_BLOCK = bytes(40_000, 1);
  private static final byte[] BIG_DATA = bytes(40_000, 2);

  private final TrackingAllocator alloc = new TrackingAllocator();
  private final Http2FrameWriter writer = new Http2FrameWriter();

  @AfterEach
  void everyBufferReleased() {
    alloc.assertAllReleased();
  }

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static ByteBuf wrap(byte[] b) {
    return Unpooled.wrappedBuffer(b);
  }

  /** One of each frame, in one write buffer. */
  private byte[] writeAll() {
    ByteBuf out = alloc.heapBuffer();
    try {
      writer.writeSettings(
          out,
          new Http2Settings()
              .set(Http2Settings.HEADER_TABLE_SIZE, 0)
              .set(Http2Settings.ENABLE_PUSH, 0)
              .set(Http2Settings.MAX_CONCURRENT_STREAMS, 100)
              .set(Http2Settings.INITIAL_WINDOW_SIZE, 1 << 20)
              .set(Http2Settings.MAX_FRAME_SIZE, 16_384)
              .set(Http2Settings.MAX_HEADER_LIST_SIZE, 8192));
      writer.writeSettingsAck(out);
      writer.writeHeaders(out, 1, wrap(new byte[] {(byte) 0x83, (byte) 0x86}), false);
      writer.writeHeaders(out, 3, wrap(BIG_BLOCK), true);
      writer.writeData(out, 1, wrap("hello".getBytes(StandardCharsets.US_ASCII)), false);
      writer.writeData(out, 1, wrap(BIG_DATA), false);
      writer.writeData(out, 1, Unpooled.EMPTY_BUFFER, true);
      writer.writePriority(out, 5, 3, true, 256);
      writer.writeRstStream(out, 3, 8);
      writer.writePing(out, 0x0102030405060708L, false);
      writer.writePing(out, -1L, true);
      writer.writeGoAway(out, 7, 0, wrap("bye".getBytes(StandardCharsets.US_ASCII)));
      writer.writeGoAway(out, 0x7FFF_FFFF, 2, Unpooled.EMPTY_BUFFER);
      writer.writeWindowUpdate(out, 0, 0x7FFF_FFFF);
      writer.writeWindowUpdate(out, 1, 1);
      return ByteBufUtil.getBytes(out);
    } finally {
      out.release();
    }
  }

  private static final List<String> EXPECTED =
      List.of(
          "SETTINGS Http2Settings{1=0, 2=0, 3=100, 4=1048576, 5=16384, 6=8192}",
          "SETTINGS ACK",
          "HEADERS 1 [8386]",
          "HEADERS 3 " + summary(BIG_BLOCK) + " END_STREAM",
          "DATA 1 [68656c6c6f] padding=0",
          "DATA 1 " + summary(java.util.Arrays.copyOfRange(BIG_DATA, 0, 16_384)) + " padding=0",
          "DATA 1 "
              + summary(java.util.Arrays.copyOfRange(BIG_DATA, 16_384, 32_768))
              + " padding=0",
          "DATA 1 "
              + summary(java.util.Arrays.copyOfRange(BIG_DATA, 32_768, 40_000))
              + " padding=0",
          "DATA 1 [] padding=0 END_STREAM",
          "PRIORITY 5 on 3 exclusive 256",
          "RST_STREAM 3 8",
          "PING 102030405060708",
          "PING ffffffffffffffff ACK",
          "GOAWAY 7 0 [627965]",
          "GOAWAY 2147483647 2 []",
          "WINDOW_UPDATE 0 2147483647",
          "WINDOW_UPDATE 1 1");

  private static String summary(byte[] b) {
    return "["
        + b.length
        + " bytes #"
        + Integer.toHexString(ByteBufUtil.hashCode(Unpooled.wrappedBuffer(b)))
        + "]";
  }

  /** Reads {@code frames} in chunks of the given sizes (cycling), as arriving from a socket. */
  private List<String> read(byte[] frames, int... chunkSizes) throws Http2FrameException {
    RecordingListener listener = new RecordingListener();
    Http2FrameReader reader = new Http2FrameReader(64 * 1024);
    try {
      int offset = 0;
      for (int i = 0; offset < frames.length; i++) {
        int n = Math.min(chunkSizes[i % chunkSizes.length], frames.length - offset);
        ByteBuf chunk = alloc.of(frames, offset, n);
        try {
          reader.read(chunk, listener);
          assertThat(chunk.isReadable()).as("chunk consumed").isFalse();
        } finally {
          chunk.release();
        }
        offset += n;
      }
    } finally {
      reader.close();
    }
    return listener.events;
  }

  @Test
  void everyFrameTypeWhole() throws Http2FrameException {
    byte[] frames = writeAll();
    assertThat(read(frames, frames.length)).isEqualTo(EXPECTED);
  }

  @Test
  void everyFrameTypeOneByteAtATime() throws Http2FrameException {
    assertThat(read(writeAll(), 1)).isEqualTo(EXPECTED);
  }

  @Test
  void everyFrameTypeInRandomChunks() throws Http2FrameException {
    byte[] frames = writeAll();
    Random random = new Random(9113);
    for (int run = 0; run < 20; run++) {
      int[] sizes = new int[16];
      for (int i = 0; i < sizes.length; i++) {
        sizes[i] = 1 + random.nextInt(random.nextBoolean() ? 12 : 20_000);
      }
      assertThat(read(frames, sizes))
          .as("chunks %s", java.util.Arrays.toString(sizes))
          .isEqualTo(EXPECTED);
    }
  }

  @Test
  void headersAndDataSplitAtTheWritersMaxFrameSize() throws Http2FrameException {
    writer.setMaxFrameSize(20_000);
    ByteBuf out = alloc.heapBuffer();
    try {
      writer.writeHeaders(out, 1, wrap(BIG_BLOCK), false);
      writer.writeData(out, 1, wrap(BIG_DATA), true);
      // 40,000 bytes at 20,000 a frame: HEADERS + 1 CONTINUATION, 2 DATA frames.
      assertThat(out.readableBytes()).isEqualTo(80_000 + 4 * 9);
      assertThat(out.getByte(9 + 20_000 + 3)).as("second frame type").isEqualTo((byte) 0x9);
      Http2FrameReader reader = new Http2FrameReader(64 * 1024);
      reader.setMaxFrameSize(20_000);
      RecordingListener listener = new RecordingListener();
      reader.read(out, listener);
      reader.close();
      assertThat(listener.events)
          .containsExactly(
              "HEADERS 1 " + summary(BIG_BLOCK),
              "DATA 1 " + summary(java.util.Arrays.copyOfRange(BIG_DATA, 0, 20_000)) + " padding=0",
              "DATA 1 "
                  + summary(java.util.Arrays.copyOfRange(BIG_DATA, 20_000, 40_000))
                  + " padding=0 END_STREAM");
    } finally {
      out.release();
    }
  }
}
