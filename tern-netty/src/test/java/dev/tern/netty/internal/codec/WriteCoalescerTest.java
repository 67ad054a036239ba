package dev.tern.netty.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What leaves the coalescer: the same bytes in the same order, fewer buffers, every promise
 * completed as its bytes' write completes, nothing leaked.
 */
class WriteCoalescerTest {
  private final List<ChannelFuture> futures = new ArrayList<>();
  private EmbeddedChannel channel;

  @AfterEach
  void tearDown() {
    if (channel != null) {
      channel.finishAndReleaseAll();
    }
  }

  private static ByteBuf text(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  private static ByteBuf filled(int bytes, char c) {
    return text(String.valueOf(c).repeat(bytes));
  }

  private void write(Object msg) {
    futures.add(channel.write(msg));
  }

  /** Reads every outbound buffer, releasing it; returns their contents. */
  private List<String> sent() {
    List<String> out = new ArrayList<>();
    ByteBuf buf;
    while ((buf = channel.readOutbound()) != null) {
      out.add(buf.toString(StandardCharsets.US_ASCII));
      buf.release();
    }
    return out;
  }

  @Test
  void smallWritesBetweenFlushesLeaveAsOneBufferAndEveryPromiseSucceeds() {
    channel = new EmbeddedChannel(new WriteCoalescer());
    write(text("frame-header|"));
    write(text("header-block|"));
    write(text("data"));
    assertThat(futures).noneMatch(ChannelFuture::isDone);

    channel.flush();

    assertThat(sent()).containsExactly("frame-header|header-block|data");
    assertThat(futures).allMatch(ChannelFuture::isSuccess);
  }

  @Test
  void aLoneSmallWriteLeavesUncopied() {
    channel = new EmbeddedChannel(new WriteCoalescer());
    ByteBuf ping = text("ping");
    write(ping);
    channel.flush();

    ByteBuf out = channel.readOutbound();
    assertThat(out).isSameAs(ping);
    out.release();
    assertThat(futures.get(0).isSuccess()).isTrue();
  }

  @Test
  void largeBuffersAndOtherMessagesKeepTheirPlaceInTheOrder() {
    channel = new EmbeddedChannel(new WriteCoalescer());
    write(text("a"));
    write(text("b"));
    write(filled(WriteCoalescer.MAX_COPY_BYTES + 1, 'L'));
    write(text("c"));
    channel.write(text("void"), channel.voidPromise());
    write(text("d"));
    channel.flush();

    assertThat(sent())
        .containsExactly("ab", "L".repeat(WriteCoalescer.MAX_COPY_BYTES + 1), "c", "void", "d");
    assertThat(futures).allMatch(ChannelFuture::isSuccess);
  }

  @Test
  void aMergeThatWouldOverflowItsBufferStartsAnother() {
    channel = new EmbeddedChannel(new WriteCoalescer());
    int piece = WriteCoalescer.MAX_COPY_BYTES;
    int perBuffer = WriteCoalescer.MERGE_CAPACITY / piece;
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < perBuffer + 1; i++) {
      char c = (char) ('a' + i);
      write(filled(piece, c));
      expected.append(String.valueOf(c).repeat(piece));
    }
    channel.flush();

    List<String> out = sent();
    assertThat(out).hasSize(2);
    assertThat(out.get(0)).hasSize(WriteCoalescer.MERGE_CAPACITY);
    assertThat(String.join("", out)).isEqualTo(expected.toString());
    assertThat(futures).allMatch(ChannelFuture::isSuccess);
  }

  @Test
  void aFailedMergedWriteFailsEveryPromiseWithItsCause() {
    RuntimeException boom = new RuntimeException("socket gone");
    ChannelOutboundHandlerAdapter failing =
        new ChannelOutboundHandlerAdapter() {
          @Override
          public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ((ByteBuf) msg).release();
            promise.setFailure(boom);
          }
        };
    channel = new EmbeddedChannel(failing, new WriteCoalescer());
    write(text("one"));
    write(text("two"));
    channel.flush();

    assertThat(futures).allMatch(f -> f.cause() == boom);
  }

  @Test
  void closeSendsWhatIsHeldSoItsPromisesFailInsteadOfHanging() {
    channel = new EmbeddedChannel(new WriteCoalescer());
    write(text("one"));
    write(text("two"));

    channel.close();

    assertThat(futures).allMatch(f -> f.isDone() && !f.isSuccess());
  }

  @Test
  void removingTheHandlerReleasesWhatIsHeldAndFailsItsPromises() {
    channel = new EmbeddedChannel(new WriteCoalescer());
    ByteBuf one = text("one");
    ByteBuf two = text("two");
    write(one);
    write(two);

    channel.pipeline().removeFirst();

    assertThat(futures).allMatch(f -> f.isDone() && !f.isSuccess());
    assertThat(one.refCnt()).isZero();
    assertThat(two.refCnt()).isZero();
  }
}
