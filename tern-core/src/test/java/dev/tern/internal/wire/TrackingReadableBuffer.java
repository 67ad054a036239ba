package dev.tern.internal.wire;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A test {@link ReadableBuffer} over a byte array that records whether it was closed. One made with
 * a registry stands for a transport buffer (a Netty slice): it joins the registry, has no
 * accessible array, and the slices cut from it ({@link #readBytes(int)}) are registered buffers of
 * their own that must be closed on their own, as a retained Netty slice must be released.
 */
final class TrackingReadableBuffer implements ReadableBuffer {
  private final ReadableBuffer delegate;
  private final List<TrackingReadableBuffer> registry;
  private int closeCount;

  TrackingReadableBuffer(byte... bytes) {
    this.delegate = ReadableBuffers.wrap(bytes);
    this.registry = null;
  }

  TrackingReadableBuffer(byte[] bytes, List<TrackingReadableBuffer> registry) {
    this.delegate = ReadableBuffers.wrap(bytes);
    this.registry = registry;
    registry.add(this);
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
    if (registry == null) {
      return delegate.readBytes(length);
    }
    byte[] slice = new byte[length];
    delegate.readBytes(slice, 0, length);
    return new TrackingReadableBuffer(slice, registry);
  }

  @Override
  public boolean hasArray() {
    return registry == null && delegate.hasArray();
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

  @Override
  public String toString() {
    return "TrackingReadableBuffer[" + delegate.readableBytes() + " bytes left]";
  }
}
