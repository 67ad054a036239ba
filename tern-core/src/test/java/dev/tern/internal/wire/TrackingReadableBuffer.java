package dev.tern.internal.wire;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/** A test {@link ReadableBuffer} over a byte array that records whether it was closed. */
final class TrackingReadableBuffer implements ReadableBuffer {
  private final ReadableBuffer delegate;
  private int closeCount;

  TrackingReadableBuffer(byte... bytes) {
    this.delegate = ReadableBuffers.wrap(bytes);
  }

  boolean isClosed() {
    return closeCount > 0;
  }

  int closeCount() {
    return closeCount;
  }

  @Override
  public int readableBytes() {
    return delegate.readableBytes();
  }

  @Override
  public int readUnsignedByte() {
    return delegate.readUnsignedByte();
  }

  @Override
  public int readInt() {
    return delegate.readInt();
  }

  @Override
  public void skipBytes(int length) {
    delegate.skipBytes(length);
  }

  @Override
  public void readBytes(byte[] dest, int destOffset, int length) {
    delegate.readBytes(dest, destOffset, length);
  }

  @Override
  public void readBytes(ByteBuffer dest) {
    delegate.readBytes(dest);
  }

  @Override
  public void readBytes(OutputStream dest, int length) throws IOException {
    delegate.readBytes(dest, length);
  }

  @Override
  public ReadableBuffer readBytes(int length) {
    return delegate.readBytes(length);
  }

  @Override
  public boolean hasArray() {
    return delegate.hasArray();
  }

  @Override
  public byte[] array() {
    return delegate.array();
  }

  @Override
  public int arrayOffset() {
    return delegate.arrayOffset();
  }

  @Override
  public void close() {
    closeCount++;
  }
}
