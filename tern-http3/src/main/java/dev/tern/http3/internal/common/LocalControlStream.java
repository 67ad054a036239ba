package dev.tern.http3.internal.common;

import dev.tern.http3.internal.frame.Http3Frames;
import dev.tern.http3.internal.frame.VarInt;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.util.concurrent.Future;

/**
 * Opens this end's control stream (RFC 9114 section 6.2.1) and writes its SETTINGS: QPACK's dynamic
 * table capacity 0 and no blocked streams (Tern's QPACK uses the static table and literals only),
 * and the largest field section this end accepts (its metadata limit). Stateless.
 */
public final class LocalControlStream {
  private LocalControlStream() {}

  /**
   * Opens the stream on {@code connection} (from its event loop); the future fails if QUIC cannot
   * open it, which is H3_CLOSED_CRITICAL_STREAM for the caller.
   */
  public static Future<QuicStreamChannel> open(QuicChannel connection, long maxFieldSectionSize) {
    Future<QuicStreamChannel> opened =
        connection.createStream(QuicStreamType.UNIDIRECTIONAL, new ChannelInboundHandlerAdapter());
    opened.addListener(
        f -> {
          if (!f.isSuccess()) {
            return;
          }
          QuicStreamChannel stream = (QuicStreamChannel) f.getNow();
          ByteBuf out = stream.alloc().buffer();
          VarInt.write(out, Http3Frames.CONTROL_STREAM);
          Http3Frames.writeSettings(
              out,
              Http3Frames.SETTINGS_QPACK_MAX_TABLE_CAPACITY,
              0,
              Http3Frames.SETTINGS_QPACK_BLOCKED_STREAMS,
              0,
              Http3Frames.SETTINGS_MAX_FIELD_SECTION_SIZE,
              maxFieldSectionSize);
          stream.writeAndFlush(out);
        });
    return opened;
  }
}
