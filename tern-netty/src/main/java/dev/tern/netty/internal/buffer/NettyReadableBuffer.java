package dev.tern.netty.internal.buffer;

import dev.tern.internal.wire.ReadableBuffer;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * A {@link ReadableBuffer} over a Netty {@link ByteBuf} it owns one reference of. Slices taken with
 * {@link #readBytes(int)} share memory (retained slices), so inbound DATA is never copied on its
 * way to the application's message stream.
 *
 * <p>Not thread-safe: owned by one thread at a time; {@link #close()} releases the reference.
 */
public final class NettyReadableBuffer implements ReadableBuffer {
  private final ByteBuf buf;
  private boolean closed;

  /** Takes ownership of one reference of {@code buf}. */
  public NettyReadableBuffer(ByteBuf buf) {
    this.buf = buf;
  }

  @Override
  public int readableBytes() {
    return buf.readableBytes();
  }

  @Override
  public int readUnsignedByte() {
    return buf.readUnsignedByte();
  }

  @Override
  public int readInt() {
    return buf.readInt();
  }

  @Override
  public void skipBytes(int length) {
    buf.skipBytes(length);
  }

  @Override
  public void readBytes(byte[] dest, int destOffset, int length) {
    buf.readBytes(dest, destOffset, length);
  }

  @Override
  public void readBytes(ByteBuffer dest) {
    buf.readBytes(dest);
  }

  @Override
  public void readBytes(OutputStream dest, int length) throws IOException {
    buf.readBytes(dest, length);
  }

  @Override
  public ReadableBuffer readBytes(int length) {
    return new NettyReadableBuffer(buf.readRetainedSlice(length));
  }

  @Override
  public boolean hasArray() {
    return buf.hasArray();
  }

  @Override
  public byte[] array() {
    return buf.array();
  }

  @Override
  public int arrayOffset() {
    return buf.arrayOffset() + buf.readerIndex();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      buf.release();
    }
  }
}
