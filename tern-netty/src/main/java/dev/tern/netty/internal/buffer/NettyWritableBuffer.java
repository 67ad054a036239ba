package dev.tern.netty.internal.buffer;

import dev.tern.internal.wire.WritableBuffer;
import io.netty.buffer.ByteBuf;

/**
 * A {@link WritableBuffer} over a fixed-capacity Netty {@link ByteBuf}, so framed messages are
 * written straight into pooled memory that the channel then sends without a copy.
 *
 * <p>Not thread-safe: owned by one thread at a time. Whoever holds it either takes the buffer with
 * {@link #takeByteBuf()} (ownership moves with it) or calls {@link #release()}.
 */
public final class NettyWritableBuffer implements WritableBuffer {
  private ByteBuf buf;

  NettyWritableBuffer(ByteBuf buf) {
    this.buf = buf;
  }

  @Override
  public void write(byte[] src, int srcOffset, int length) {
    buf.writeBytes(src, srcOffset, length);
  }

  @Override
  public void write(byte b) {
    buf.writeByte(b);
  }

  @Override
  public int writableBytes() {
    return buf == null ? 0 : buf.maxWritableBytes();
  }

  @Override
  public int readableBytes() {
    return buf == null ? 0 : buf.readableBytes();
  }

  @Override
  public void release() {
    ByteBuf b = buf;
    buf = null;
    if (b != null) {
      b.release();
    }
  }

  /** Hands the underlying buffer over; this object is empty afterwards. */
  public ByteBuf takeByteBuf() {
    ByteBuf b = buf;
    buf = null;
    return b;
  }
}
