package dev.tern.netty.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Frames cut into reads of every size reach the frame reader intact; large reads are joined without
 * a copy, and a peer trickling bytes cannot grow the cumulation into many components.
 */
class ReadCumulatorTest {
  private static final int FRAME = 16_384;
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  /**
   * Decodes HTTP/2 frames with the cumulator like the connection handler does, keeping every DATA
   * payload as a retained slice (as the message deframer does until a message is whole).
   */
  private static final class FrameDecoder extends ByteToMessageDecoder {
    private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader();
    final List<ByteBuf> payloads = new ArrayList<>();
    int mostComponents;

    FrameDecoder() {
      setCumulator(ReadCumulator.INSTANCE);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
        throws Exception {
      if (in instanceof CompositeByteBuf) {
        mostComponents = Math.max(mostComponents, ((CompositeByteBuf) in).numComponents());
      }
      reader.readFrame(
          ctx,
          in,
          new Http2FrameAdapter() {
            @Override
            public int onDataRead(
                ChannelHandlerContext c, int streamId, ByteBuf data, int padding, boolean end) {
              payloads.add(data.retain());
              return 0;
            }
          });
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
      reader.close();
      payloads.forEach(ByteBuf::release);
    }
  }

  private final FrameDecoder decoder = new FrameDecoder();
  private final EmbeddedChannel channel = new EmbeddedChannel(decoder);

  @AfterEach
  void tearDown() {
    channel.finishAndReleaseAll();
  }

  /**
   * {@code frames} DATA frames of {@link #FRAME} random bytes each on stream 1, and the payload.
   */
  private static byte[][] dataFrames(int frames) {
    Random random = new Random(frames);
    byte[] payload = new byte[frames * FRAME];
    random.nextBytes(payload);
    byte[] wire = new byte[frames * (9 + FRAME)];
    for (int i = 0; i < frames; i++) {
      int at = i * (9 + FRAME);
      wire[at] = (byte) (FRAME >>> 16);
      wire[at + 1] = (byte) (FRAME >>> 8);
      wire[at + 2] = (byte) FRAME;
      wire[at + 3] = 0; // DATA
      wire[at + 4] = 0; // no flags
      wire[at + 8] = 1; // stream 1
      System.arraycopy(payload, i * FRAME, wire, at + 9, FRAME);
    }
    return new byte[][] {wire, payload};
  }

  /** Feeds {@code wire} as reads of the given sizes in turn (pooled direct buffers, like NIO). */
  private void feed(byte[] wire, int... readSizes) {
    int at = 0;
    for (int i = 0; at < wire.length; i++) {
      int n = Math.min(readSizes[i % readSizes.length], wire.length - at);
      channel.writeInbound(ALLOC.directBuffer(n).writeBytes(wire, at, n));
      at += n;
    }
  }

  private byte[] received() {
    ByteBuf all = Unpooled.buffer();
    decoder.payloads.forEach(p -> all.writeBytes(p, p.readerIndex(), p.readableBytes()));
    byte[] bytes = new byte[all.readableBytes()];
    all.readBytes(bytes);
    all.release();
    return bytes;
  }

  @Test
  void largeReadsCuttingFramesDeliverEveryByteInOrder() {
    byte[][] frames = dataFrames(40);
    feed(frames[0], 65_536, 20_000, 16_393, 7_000, 50_001);
    assertThat(received()).isEqualTo(frames[1]);
    assertThat(decoder.mostComponents).isBetween(2, 8);
  }

  @Test
  void mixedLargeAndTinyReadsDeliverEveryByteInOrder() {
    byte[][] frames = dataFrames(20);
    feed(frames[0], 8_192, 1, 3, 4_096, 100, 30_000, 1_023, 9, 5_000);
    assertThat(received()).isEqualTo(frames[1]);
  }

  @Test
  void tricklingPeerCannotGrowTheCumulationIntoManyComponents() {
    byte[][] frames = dataFrames(3);
    // Every large read is followed by a thousand one-byte reads, while DATA slices are held.
    int[] sizes = new int[1_001];
    Arrays.fill(sizes, 1);
    sizes[0] = ReadCumulator.JOIN_READ_AT;
    feed(frames[0], sizes);
    assertThat(received()).isEqualTo(frames[1]);
    assertThat(decoder.mostComponents).isLessThanOrEqualTo(8);
  }

  @Test
  void largeReadAfterLongTailIsJoinedNotCopied() {
    ByteBuf tail = ALLOC.directBuffer(2_048).writeZero(2_048);
    ByteBuf in = ALLOC.directBuffer(8_192).writeZero(8_192);
    ByteBuf cumulation = ReadCumulator.INSTANCE.cumulate(ALLOC, tail, in);
    try {
      assertThat(cumulation.readableBytes()).isEqualTo(10_240);
      in.setByte(0, 42); // the read's own memory is what the cumulation shows
      assertThat(cumulation.getByte(2_048)).isEqualTo((byte) 42);
    } finally {
      cumulation.release();
    }
  }

  @Test
  void smallReadOrShortTailIsCopiedIntoOneFlatBuffer() {
    ByteBuf small =
        ReadCumulator.INSTANCE.cumulate(
            ALLOC,
            ALLOC.directBuffer(2_048).writeZero(2_048),
            ALLOC.directBuffer(100).writeZero(100));
    ByteBuf shortTail =
        ReadCumulator.INSTANCE.cumulate(
            ALLOC,
            ALLOC.directBuffer(100).writeZero(100),
            ALLOC.directBuffer(8_192).writeZero(8_192));
    try {
      assertThat(small).isNotInstanceOf(CompositeByteBuf.class);
      assertThat(small.readableBytes()).isEqualTo(2_148);
      assertThat(shortTail).isNotInstanceOf(CompositeByteBuf.class);
      assertThat(shortTail.readableBytes()).isEqualTo(8_292);
    } finally {
      small.release();
      shortTail.release();
    }
  }

  @Test
  void readAfterAConsumedCumulationIsTakenAsItIs() {
    ByteBuf consumed = ALLOC.directBuffer(16).writeZero(16);
    consumed.skipBytes(16);
    ByteBuf in = ALLOC.directBuffer(8).writeZero(8);
    ByteBuf cumulation = ReadCumulator.INSTANCE.cumulate(ALLOC, consumed, in);
    try {
      assertThat(cumulation).isSameAs(in);
      assertThat(consumed.refCnt()).isZero();
    } finally {
      cumulation.release();
    }
  }
}
