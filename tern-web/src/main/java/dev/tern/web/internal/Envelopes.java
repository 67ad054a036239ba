package dev.tern.web.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The 5-byte-prefixed envelopes gRPC-Web and Connect's streaming share with gRPC: {@code
 * [flags][big-endian length][payload]}. The flags differ by protocol; the constants say whose.
 * Stateless; thread-safe.
 */
final class Envelopes {
  /** Both protocols: the payload is compressed with the stream's encoding. */
  static final int COMPRESSED = 0x01;

  /** Connect: the end-of-stream message (JSON), last in a streaming response. */
  static final int CONNECT_END_STREAM = 0x02;

  /** gRPC-Web: the trailers, as HTTP/1-style header lines, last in a response. */
  static final int GRPC_WEB_TRAILERS = 0x80;

  static final int PREFIX_LENGTH = 5;

  private Envelopes() {}

  /** One envelope in a new buffer from {@code alloc}. */
  static ByteBuf envelope(ByteBufAllocator alloc, int flags, byte[] payload) {
    ByteBuf buf = alloc.buffer(PREFIX_LENGTH + payload.length);
    buf.writeByte(flags);
    buf.writeInt(payload.length);
    buf.writeBytes(payload);
    return buf;
  }
}
