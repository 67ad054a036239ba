package dev.tern.netty.internal.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Payloads spliced into a flush leave in their places among the flush's bytes, sharing the memory
 * they were framed into, and are released once written or when the channel goes.
 */
class ConnectionWritesSpliceTest {
  private final Writes writes = new Writes();
  private final EmbeddedChannel channel =
      new EmbeddedChannel(
          new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
              writes.attach(ctx);
            }
          });

  @AfterEach
  void closeChannel() {
    channel.finishAndReleaseAll();
  }

  /** Writes each flush as it is; nothing to report. */
  private static final class Writes extends ConnectionWrites {
    @Override
    protected void receive(ByteBuf in, ByteBuf out) {}

    @Override
    protected void flush(ByteBuf written, boolean close) {
      if (written != null) {
        write(written);
      }
    }

    @Override
    protected void onNetworkFailure(IOException failure) {}

    @Override
    protected void discardReports() {}
  }

  private static ByteBuf ascii(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  @Test
  void splicedPayloadsLeaveInTheirPlacesWithoutACopy() {
    ByteBuf first = ascii("payload-one");
    ByteBuf second = ascii("payload-two!");
    writes.out().writeCharSequence("<h1>", StandardCharsets.US_ASCII);
    assertThat(writes.splice(writes.out(), first, 7)).isTrue();
    writes.out().writeCharSequence("<h2>", StandardCharsets.US_ASCII);
    assertThat(writes.splice(writes.out(), second, second.readableBytes())).isTrue();
    writes.out().writeCharSequence("<end>", StandardCharsets.US_ASCII);
    writes.flush(false);

    List<ByteBuf> pieces = new ArrayList<>();
    for (ByteBuf piece; (piece = channel.readOutbound()) != null; ) {
      pieces.add(piece);
    }
    try {
      assertThat(pieces)
          .extracting(p -> p.toString(StandardCharsets.US_ASCII))
          .containsExactly("<h1>", "payload", "<h2>", "payload-two!", "<end>");
      first.setByte(0, 'P');
      assertThat(pieces.get(1).getByte(pieces.get(1).readerIndex()))
          .as("the payload's own memory went out")
          .isEqualTo((byte) 'P');
      assertThat(first.readerIndex())
          .as("what was spliced was taken from the payload")
          .isEqualTo(7);
    } finally {
      pieces.forEach(ByteBuf::release);
    }
    assertThat(first.refCnt()).as("the write let go of the payload").isEqualTo(1);
    assertThat(second.refCnt()).isEqualTo(1);
    first.release();
    second.release();
  }

  @Test
  void aBufferOtherThanTheFlushsIsDeclined() {
    ByteBuf payload = ascii("payload");
    ByteBuf other = Unpooled.buffer();
    try {
      assertThat(writes.splice(other, payload, 3)).isFalse();
      assertThat(payload.readerIndex()).as("nothing taken").isZero();
      assertThat(payload.refCnt()).isEqualTo(1);
    } finally {
      payload.release();
      other.release();
    }
  }

  @Test
  void splicedPayloadsAreReleasedWhenTheChannelGoesBeforeTheFlush() {
    ByteBuf payload = ascii("payload");
    writes.out().writeByte(1);
    assertThat(writes.splice(writes.out(), payload, payload.readableBytes())).isTrue();
    assertThat(payload.refCnt()).isEqualTo(2);
    writes.discard();
    assertThat(payload.refCnt()).isEqualTo(1);
    assertThat(writes.splice(writes.out(), payload, 1)).as("gone: declined").isFalse();
    writes.flush(false);
    assertThat(channel.<Object>readOutbound()).isNull();
    payload.release();
  }

  @Test
  void aFlushWithoutSplicesIsTheBufferItself() {
    writes.out().writeCharSequence("frames", StandardCharsets.US_ASCII);
    ByteBuf out = writes.out();
    writes.flush(false);
    ByteBuf written = channel.readOutbound();
    try {
      assertThat(written).isSameAs(out);
      assertThat(ByteBufUtil.getBytes(written))
          .isEqualTo("frames".getBytes(StandardCharsets.US_ASCII));
    } finally {
      written.release();
    }
  }
}
