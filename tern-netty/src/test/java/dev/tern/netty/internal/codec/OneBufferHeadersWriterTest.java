package dev.tern.netty.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The frames it writes are valid HTTP/2 that a standard reader decodes to the same headers. */
class OneBufferHeadersWriterTest {
  private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
  private final ChannelHandlerContext ctx = channel.pipeline().firstContext();
  private final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
  private final DefaultHttp2FrameWriter netty = new DefaultHttp2FrameWriter(encoder);
  private final OneBufferHeadersWriter writer = new OneBufferHeadersWriter(netty, encoder);
  private final DefaultHttp2FrameReader reader =
      new DefaultHttp2FrameReader(new DefaultHttp2HeadersDecoder(true, 100_000));

  /** One decoded HEADERS frame (with its CONTINUATIONs). */
  private record Read(int streamId, Http2Headers headers, boolean endStream) {}

  private final List<Read> read = new ArrayList<>();
  private final Http2FrameAdapter listener =
      new Http2FrameAdapter() {
        @Override
        public void onHeadersRead(
            ChannelHandlerContext c, int streamId, Http2Headers h, int padding, boolean end) {
          read.add(new Read(streamId, h, end));
        }

        @Override
        public void onHeadersRead(
            ChannelHandlerContext c,
            int streamId,
            Http2Headers h,
            int dependency,
            short weight,
            boolean exclusive,
            int padding,
            boolean end) {
          read.add(new Read(streamId, h, end));
        }
      };

  @AfterEach
  void tearDown() {
    reader.close();
    channel.finishAndReleaseAll();
  }

  private static Http2Headers response() {
    return new DefaultHttp2Headers()
        .status("200")
        .add("content-type", "application/grpc")
        .add("grpc-accept-encoding", "gzip");
  }

  /** Takes every buffer written so far, counting them, and feeds their bytes to the reader. */
  private int readWritten() throws Http2Exception {
    return WrittenFrames.read(channel, reader, listener);
  }

  @Test
  void aHeadersFrameLeavesAsOneBufferThatDecodesToTheSameHeaders() throws Exception {
    ChannelFuture f = writer.writeHeaders(ctx, 3, response(), 0, false, channel.newPromise());

    assertThat(readWritten()).isEqualTo(1);
    assertThat(f.isSuccess()).isTrue();
    assertThat(read).hasSize(1);
    assertThat(read.get(0).streamId()).isEqualTo(3);
    assertThat(read.get(0).endStream()).isFalse();
    assertThat(read.get(0).headers().status().toString()).isEqualTo("200");
    assertThat(read.get(0).headers().get("grpc-accept-encoding").toString()).isEqualTo("gzip");
  }

  @Test
  void itSharesOneHpackTableWithTheWrappedWriter() throws Exception {
    // Netty's writer (a priority frame) indexes the headers; ours then refers to those entries.
    netty.writeHeaders(ctx, 1, response(), 0, (short) 16, false, 0, false, channel.newPromise());
    writer.writeHeaders(ctx, 3, response(), 0, true, channel.newPromise());
    netty.writeHeaders(ctx, 5, response(), 0, (short) 16, false, 0, true, channel.newPromise());
    readWritten();

    assertThat(read).extracting(Read::streamId).containsExactly(1, 3, 5);
    assertThat(read).extracting(Read::endStream).containsExactly(false, true, true);
    for (Read r : read) {
      assertThat(r.headers()).isEqualTo(response());
    }
  }

  @Test
  void aBlockLargerThanTheMaxFrameSizeContinuesInContinuationFrames() throws Exception {
    String big = "x".repeat(40_000);
    Http2Headers headers = response().add("big-bin", big);
    writer.writeHeaders(ctx, 7, headers, 0, true, channel.newPromise());

    assertThat(readWritten()).isEqualTo(1);
    assertThat(read).hasSize(1);
    assertThat(read.get(0).headers().get("big-bin").toString()).isEqualTo(big);
    assertThat(read.get(0).endStream()).isTrue();
  }

  @Test
  void headersOverThePeersListLimitFailThePromiseAndWriteNothing() throws Exception {
    netty.headersConfiguration().maxHeaderListSize(64);
    Http2Headers headers = response().add("custom", "y".repeat(100));

    ChannelFuture f = writer.writeHeaders(ctx, 9, headers, 0, true, channel.newPromise());

    assertThat(f.cause()).isInstanceOf(Http2Exception.class);
    assertThat(readWritten()).isZero();
  }
}
