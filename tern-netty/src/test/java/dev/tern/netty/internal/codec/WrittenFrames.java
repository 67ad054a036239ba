package dev.tern.netty.internal.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListener;

/** Reads back what frame writers wrote to an {@link EmbeddedChannel}, for the writers' tests. */
final class WrittenFrames {
  private WrittenFrames() {}

  /**
   * Takes every buffer written to {@code channel} so far and feeds their bytes to {@code reader};
   * returns how many buffers there were.
   */
  static int read(EmbeddedChannel channel, DefaultHttp2FrameReader reader, Http2FrameListener to)
      throws Http2Exception {
    channel.flush();
    ByteBuf all = Unpooled.buffer();
    int buffers = 0;
    ByteBuf buf;
    while ((buf = channel.readOutbound()) != null) {
      buffers++;
      all.writeBytes(buf);
      buf.release();
    }
    try {
      reader.readFrame(channel.pipeline().firstContext(), all, to);
    } finally {
      all.release();
    }
    return buffers;
  }
}
