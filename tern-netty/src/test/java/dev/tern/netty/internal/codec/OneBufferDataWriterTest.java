package dev.tern.netty.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The DATA frames it writes are the ones a standard reader decodes, in one buffer when small. */
class OneBufferDataWriterTest {
  private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
  private final ChannelHandlerContext ctx = channel.pipeline().firstContext();
  private final OneBufferDataWriter writer = new OneBufferDataWriter(new DefaultHttp2FrameWriter());
  private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader();

  /** One decoded DATA frame. */
  private record Read(int streamId, String data, boolean endStream) {}

  private final List<Read> read = new ArrayList<>();
  private final Http2FrameAdapter listener =
      new Http2FrameAdapter() {
        @Override
        public int onDataRead(
            ChannelHandlerContext c, int streamId, ByteBuf data, int padding, boolean end) {
          read.add(new Read(streamId, data.toString(StandardCharsets.ISO_8859_1), end));
          return data.readableBytes() + padding;
        }
      };

  @AfterEach
  void tearDown() {
    reader.close();
    channel.finishAndReleaseAll();
  }

  /** Takes every buffer written so far, counting them, and feeds their bytes to the reader. */
  private int readWritten() throws Http2Exception {
    return WrittenFrames.read(channel, reader, listener);
  }

  private static ByteBuf payload(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
  }

  @Test
  void smallFrameIsOneBufferAndReadsBack() throws Exception {
    ByteBuf data = payload("\0\0\0\0\5hello");
    ChannelFuture written = writer.writeData(ctx, 3, data, 0, false, channel.newPromise());

    assertThat(readWritten()).isEqualTo(1);
    assertThat(written.isSuccess()).isTrue();
    assertThat(data.refCnt()).as("the payload is released once copied").isZero();
    assertThat(read).containsExactly(new Read(3, "\0\0\0\0\5hello", false));
  }

  @Test
  void emptyEndStreamFrame() throws Exception {
    writer.writeData(ctx, 5, Unpooled.EMPTY_BUFFER, 0, true, channel.newPromise());

    assertThat(readWritten()).isEqualTo(1);
    assertThat(read).containsExactly(new Read(5, "", true));
  }

  @Test
  void sameBytesAsNettysWriter() {
    String message = "x".repeat(1000);
    writer.writeData(ctx, 7, payload(message), 0, true, channel.newPromise());
    channel.flush();
    ByteBuf ours = channel.readOutbound();
    new DefaultHttp2FrameWriter()
        .writeData(ctx, 7, payload(message), 0, true, channel.newPromise());
    channel.flush();
    ByteBuf theirs = Unpooled.buffer();
    ByteBuf buf;
    while ((buf = channel.readOutbound()) != null) {
      theirs.writeBytes(buf);
      buf.release();
    }
    try {
      assertThat(ByteBufUtil.hexDump(ours)).isEqualTo(ByteBufUtil.hexDump(theirs));
    } finally {
      ours.release();
      theirs.release();
    }
  }

  @Test
  void largeAndPaddedFramesGoToTheWrappedWriter() throws Exception {
    String large = "y".repeat(OneBufferDataWriter.MAX_COPIED + 1);
    writer.writeData(ctx, 9, payload(large), 0, false, channel.newPromise());
    assertThat(readWritten()).as("frame header and payload slice").isEqualTo(2);

    writer.writeData(ctx, 11, payload("padded"), 4, false, channel.newPromise());
    readWritten();

    assertThat(read).containsExactly(new Read(9, large, false), new Read(11, "padded", false));
  }
}
