package dev.tern.internal.wire;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A {@link ReadableBuffer} made of a queue of buffers, read as one sequence. Reads cross component
 * boundaries transparently; each component is closed as soon as it is fully read, so memory is
 * released while the rest of the composite is still in use.
 *
 * <p>{@link #readBytes(int)} hands out whole components without copying and slices the boundary
 * component, so moving a message body out of inbound data never copies bytes.
 *
 * <p>Not thread-safe: a composite belongs to one thread at a time.
 */
public final class CompositeReadableBuffer implements ReadableBuffer {

  private final ArrayDeque<ReadableBuffer> components;
  private int readableBytes;
  private boolean closed;

  /** Creates an empty composite. */
  public CompositeReadableBuffer() {
    // Most composites hold a frame or two at a time (a unary message); the deque grows as needed.
    components = new ArrayDeque<>(2);
  }

  private CompositeReadableBuffer(int expectedComponents) {
    components = new ArrayDeque<>(expectedComponents);
  }

  /**
   * Appends {@code buffer}, taking ownership of it. A composite's components are moved over
   * individually rather than nested. An empty buffer is closed right away.
   *
   * @throws IllegalStateException if this composite is closed (the buffer is closed first)
   */
  public void addBuffer(ReadableBuffer buffer) {
    Objects.requireNonNull(buffer, "buffer");
    if (closed) {
      buffer.close();
      throw new IllegalStateException("CompositeReadableBuffer is closed");
    }
    if (buffer instanceof CompositeReadableBuffer) {
      CompositeReadableBuffer other = (CompositeReadableBuffer) buffer;
      ReadableBuffer component;
      while ((component = other.components.poll()) != null) {
        components.add(component);
      }
      readableBytes += other.readableBytes;
      other.readableBytes = 0;
      return;
    }
    if (buffer.readableBytes() == 0) {
      buffer.close();
      return;
    }
    components.add(buffer);
    readableBytes += buffer.readableBytes();
  }

  @Override
  public int readableBytes() {
    return readableBytes;
  }

  @Override
  public int readUnsignedByte() {
    ReadableBuffers.checkReadable(this, 1);
    ReadableBuffer first = components.peek();
    int value = first.readUnsignedByte();
    consumed(first, 1);
    return value;
  }

  @Override
  public int readInt() {
    ReadableBuffers.checkReadable(this, 4);
    ReadableBuffer first = components.peek();
    if (first.readableBytes() >= 4) {
      int value = first.readInt();
      consumed(first, 4);
      return value;
    }
    return readUnsignedByte() << 24
        | readUnsignedByte() << 16
        | readUnsignedByte() << 8
        | readUnsignedByte();
  }

  @Override
  public void skipBytes(int length) {
    ReadableBuffers.checkReadable(this, length);
    int remaining = length;
    while (remaining > 0) {
      ReadableBuffer first = components.peek();
      int n = Math.min(remaining, first.readableBytes());
      first.skipBytes(n);
      consumed(first, n);
      remaining -= n;
    }
  }

  @Override
  public void readBytes(byte[] dest, int destOffset, int length) {
    Objects.checkFromIndexSize(destOffset, length, dest.length);
    ReadableBuffers.checkReadable(this, length);
    int offset = destOffset;
    int remaining = length;
    while (remaining > 0) {
      ReadableBuffer first = components.peek();
      int n = Math.min(remaining, first.readableBytes());
      first.readBytes(dest, offset, n);
      consumed(first, n);
      offset += n;
      remaining -= n;
    }
  }

  @Override
  public void readBytes(ByteBuffer dest) {
    int length = dest.remaining();
    ReadableBuffers.checkReadable(this, length);
    int limit = dest.limit();
    try {
      int remaining = length;
      while (remaining > 0) {
        ReadableBuffer first = components.peek();
        int n = Math.min(remaining, first.readableBytes());
        dest.limit(dest.position() + n);
        first.readBytes(dest);
        consumed(first, n);
        remaining -= n;
      }
    } finally {
      dest.limit(limit);
    }
  }

  @Override
  public void readBytes(OutputStream dest, int length) throws IOException {
    ReadableBuffers.checkReadable(this, length);
    int remaining = length;
    while (remaining > 0) {
      ReadableBuffer first = components.peek();
      int n = Math.min(remaining, first.readableBytes());
      first.readBytes(dest, n);
      consumed(first, n);
      remaining -= n;
    }
  }

  /**
   * Returns the next {@code length} bytes without copying: a slice of the first component when it
   * holds them all, otherwise a new composite of whole components plus a slice of the last one.
   */
  @Override
  public ReadableBuffer readBytes(int length) {
    ReadableBuffers.checkReadable(this, length);
    if (length == 0) {
      return ReadableBuffers.empty();
    }
    ReadableBuffer first = components.peek();
    if (first.readableBytes() >= length) {
      ReadableBuffer slice = first.readBytes(length);
      consumed(first, length);
      return slice;
    }
    CompositeReadableBuffer result = new CompositeReadableBuffer(4);
    int remaining = length;
    while (remaining > 0) {
      first = components.peek();
      int available = first.readableBytes();
      if (available <= remaining) {
        components.poll();
        result.components.add(first);
        result.readableBytes += available;
        readableBytes -= available;
        remaining -= available;
      } else {
        result.addBuffer(first.readBytes(remaining));
        readableBytes -= remaining;
        remaining = 0;
      }
    }
    return result;
  }

  /** Returns false: the bytes are spread over several arrays. */
  @Override
  public boolean hasArray() {
    return false;
  }

  /**
   * Always throws: the bytes are spread over several arrays.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public byte[] array() {
    throw new UnsupportedOperationException("a composite buffer has no single backing array");
  }

  /**
   * Always throws: the bytes are spread over several arrays.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public int arrayOffset() {
    throw new UnsupportedOperationException("a composite buffer has no single backing array");
  }

  /** Closes every remaining component. Idempotent. */
  @Override
  public void close() {
    closed = true;
    ReadableBuffer component;
    while ((component = components.poll()) != null) {
      component.close();
    }
    readableBytes = 0;
  }

  /** Accounts for {@code n} bytes read from {@code first}, closing it once it is exhausted. */
  private void consumed(ReadableBuffer first, int n) {
    readableBytes -= n;
    if (first.readableBytes() == 0) {
      components.poll();
      first.close();
    }
  }
}
