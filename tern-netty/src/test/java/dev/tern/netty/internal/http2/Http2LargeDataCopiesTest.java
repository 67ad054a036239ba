package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A large message's DATA is not copied by the engine on either side: the writer splices payloads of
 * {@link Http2FrameWriter#SPLICE_MIN_BYTES} or more (writing only their frame headers into the
 * flush's buffer), and the reader hands a DATA frame split across chunks on as slices of those
 * chunks. Sharing memory is what is checked: a byte changed in the source after the engine is done
 * shows in what it produced, which a copy would not.
 */
class Http2LargeDataCopiesTest {
  private static final int FRAME = Http2Frames.DEFAULT_MAX_FRAME_SIZE;

  private final TrackingAllocator alloc = new TrackingAllocator();
  private final List<ByteBuf> received = new ArrayList<>();

  @AfterEach
  void everyBufferReleased() {
    received.forEach(ByteBuf::release);
    alloc.assertAllReleased();
  }

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  /** Splices by keeping the payload slices, each with the index of {@code out} it follows. */
  private static final class RecordingSplicer implements Http2DataSplicer {
    final List<ByteBuf> slices = new ArrayList<>();
    final List<Integer> positions = new ArrayList<>();

    @Override
    public boolean splice(ByteBuf out, ByteBuf data, int length) {
      positions.add(out.writerIndex());
      slices.add(data.readRetainedSlice(length));
      return true;
    }

    /** The bytes of the write: {@code out} with every slice in its place. */
    byte[] assembled(ByteBuf out) {
      ByteBuf whole = Unpooled.buffer();
      int from = 0;
      for (int i = 0; i < slices.size(); i++) {
        whole.writeBytes(out, from, positions.get(i) - from);
        whole.writeBytes(slices.get(i), slices.get(i).readerIndex(), slices.get(i).readableBytes());
        from = positions.get(i);
      }
      whole.writeBytes(out, from, out.writerIndex() - from);
      return ByteBufUtil.getBytes(whole);
    }

    void release() {
      slices.forEach(ByteBuf::release);
    }
  }

  @Test
  void largeDataLeavesTheWriterAsSlicesWithOnlyFrameHeadersCopied() throws Exception {
    byte[] message = bytes(2 * FRAME + 100);
    ByteBuf data = alloc.of(message, 0, message.length);
    ByteBuf out = alloc.heapBuffer();
    RecordingSplicer splicer = new RecordingSplicer();
    Http2FrameWriter writer = new Http2FrameWriter();
    writer.setDataSplicer(splicer);
    try {
      writer.writeData(out, 1, data, true);

      assertThat(splicer.slices).extracting(ByteBuf::readableBytes).containsExactly(FRAME, FRAME);
      assertThat(out.readableBytes())
          .as("three frame headers and the 100-byte tail, too small to splice")
          .isEqualTo(3 * Http2Frames.HEADER_LENGTH + 100);
      data.setByte(5, message[5] ^ 0x55);
      assertThat(splicer.slices.get(0).getByte(5))
          .as("the spliced payload shares the message's memory")
          .isEqualTo((byte) (message[5] ^ 0x55));
      data.setByte(5, message[5]);

      List<ByteBuf> frames = readBack(splicer.assembled(out));
      assertThat(frames).extracting(ByteBuf::readableBytes).containsExactly(FRAME, FRAME, 100);
      assertThat(concat(frames)).isEqualTo(message);
    } finally {
      splicer.release();
      data.release();
      out.release();
    }
  }

  @Test
  void smallDataAndADecliningSplicerAreCopiedAsBefore() throws Exception {
    byte[] small = bytes(Http2FrameWriter.SPLICE_MIN_BYTES - 1);
    byte[] large = bytes(FRAME);
    ByteBuf out = alloc.heapBuffer();
    Http2FrameWriter writer = new Http2FrameWriter();
    RecordingSplicer recording = new RecordingSplicer();
    writer.setDataSplicer(recording);
    writer.writeData(out, 1, Unpooled.wrappedBuffer(small), false);
    writer.setDataSplicer((o, d, n) -> false);
    writer.writeData(out, 1, Unpooled.wrappedBuffer(large), true);
    try {
      assertThat(recording.slices).as("below the threshold: copied").isEmpty();
      assertThat(out.readableBytes())
          .isEqualTo(2 * Http2Frames.HEADER_LENGTH + small.length + large.length);
      List<ByteBuf> frames = readBack(ByteBufUtil.getBytes(out));
      assertThat(ByteBufUtil.getBytes(frames.get(0))).isEqualTo(small);
      assertThat(ByteBufUtil.getBytes(frames.get(1))).isEqualTo(large);
    } finally {
      out.release();
    }
  }

  @Test
  void dataFrameSplitAcrossChunksReachesTheListenerWithoutACopy() throws Exception {
    byte[] payload = bytes(FRAME);
    ByteBuf frame = alloc.heapBuffer();
    new Http2FrameWriter().writeData(frame, 1, Unpooled.wrappedBuffer(payload), true);
    int split = Http2Frames.HEADER_LENGTH + 6000;
    ByteBuf first = alloc.of(ByteBufUtil.getBytes(frame, 0, split), 0, split);
    byte[] rest = ByteBufUtil.getBytes(frame, split, frame.readableBytes() - split);
    ByteBuf second = alloc.of(rest, 0, rest.length);
    frame.release();
    Http2FrameReader reader = new Http2FrameReader(1024);
    try {
      reader.read(first, new DataOnly());
      assertThat(received).as("half a frame: nothing yet").isEmpty();
      reader.read(second, new DataOnly());
    } finally {
      first.release();
      second.release();
      reader.close();
    }
    assertThat(received).singleElement();
    ByteBuf data = received.get(0);
    assertThat(ByteBufUtil.getBytes(data)).isEqualTo(payload);
    first.setByte(Http2Frames.HEADER_LENGTH, payload[0] ^ 0x55);
    second.setByte(0, payload[6000] ^ 0x55);
    assertThat(data.getByte(data.readerIndex()))
        .as("the first chunk's memory")
        .isEqualTo((byte) (payload[0] ^ 0x55));
    assertThat(data.getByte(data.readerIndex() + 6000))
        .as("the second chunk's memory")
        .isEqualTo((byte) (payload[6000] ^ 0x55));
  }

  @Test
  void dataFrameTrickledInTinyChunksIsCopiedOnceItSpansTooManySlices() throws Exception {
    byte[] payload = bytes(FRAME);
    ByteBuf frame = alloc.heapBuffer();
    new Http2FrameWriter().writeData(frame, 1, Unpooled.wrappedBuffer(payload), true);
    byte[] wire = ByteBufUtil.getBytes(frame);
    frame.release();
    Http2FrameReader reader = new Http2FrameReader(1024);
    List<ByteBuf> chunks = new ArrayList<>();
    try {
      for (int i = 0; i < wire.length; i += 100) {
        ByteBuf chunk = alloc.of(wire, i, Math.min(100, wire.length - i));
        chunks.add(chunk);
        reader.read(chunk, new DataOnly());
        chunk.release();
      }
    } finally {
      reader.close();
    }
    assertThat(received).singleElement();
    assertThat(ByteBufUtil.getBytes(received.get(0))).isEqualTo(payload);
    assertThat(chunks)
        .as("no chunk is held by the delivered payload once it was gathered into a copy")
        .allSatisfy(chunk -> assertThat(chunk.refCnt()).isZero());
  }

  private List<ByteBuf> readBack(byte[] wire) throws Http2FrameException {
    Http2FrameReader reader = new Http2FrameReader(1024);
    ByteBuf in = Unpooled.wrappedBuffer(wire);
    try {
      reader.read(in, new DataOnly());
    } finally {
      reader.close();
    }
    return received;
  }

  private static byte[] concat(List<ByteBuf> buffers) {
    ByteBuf all = Unpooled.buffer();
    for (ByteBuf b : buffers) {
      all.writeBytes(b, b.readerIndex(), b.readableBytes());
    }
    return ByteBufUtil.getBytes(all);
  }

  /** Keeps each DATA payload (released after the test); any other frame is a failure. */
  private final class DataOnly implements Http2FrameListener {
    @Override
    public void onData(int streamId, ByteBuf data, int padding, boolean endStream) {
      received.add(data);
    }

    @Override
    public void onHeaders(int streamId, ByteBuf headerBlock, boolean endStream) {
      throw new AssertionError("HEADERS");
    }

    @Override
    public void onRstStream(int streamId, long errorCode) {
      throw new AssertionError("RST_STREAM");
    }

    @Override
    public void onSettings(Http2Settings settings) {
      throw new AssertionError("SETTINGS");
    }

    @Override
    public void onSettingsAck() {
      throw new AssertionError("SETTINGS ack");
    }

    @Override
    public void onPing(long data, boolean ack) {
      throw new AssertionError("PING");
    }

    @Override
    public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {
      throw new AssertionError("GOAWAY");
    }

    @Override
    public void onWindowUpdate(int streamId, int increment) {
      throw new AssertionError("WINDOW_UPDATE");
    }
  }
}
