package dev.tern.internal.wire;

import dev.tern.KnownLength;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/** Factories for {@link ReadableBuffer}s over heap memory, and an {@link InputStream} view. */
public final class ReadableBuffers {

  private static final ReadableBuffer EMPTY = new ByteArrayReadableBuffer(new byte[0], 0, 0);

  private ReadableBuffers() {}

  /** Returns a buffer with no bytes; closing it does nothing. */
  public static ReadableBuffer empty() {
    return EMPTY;
  }

  /** Returns a buffer over all of {@code bytes}, sharing the array (no copy). */
  public static ReadableBuffer wrap(byte[] bytes) {
    return wrap(bytes, 0, bytes.length);
  }

  /**
   * Returns a buffer over {@code bytes[offset, offset + length)}, sharing the array (no copy).
   *
   * @throws IndexOutOfBoundsException if the range is outside {@code bytes}
   */
  public static ReadableBuffer wrap(byte[] bytes, int offset, int length) {
    Objects.requireNonNull(bytes, "bytes");
    Objects.checkFromIndexSize(offset, length, bytes.length);
    return new ByteArrayReadableBuffer(bytes, offset, offset + length);
  }

  /**
   * Returns a buffer over the remaining bytes of {@code bytes}. The buffer takes it over: reading
   * advances its position, so the caller must not use it afterwards.
   */
  public static ReadableBuffer wrap(ByteBuffer bytes) {
    return new ByteBufferReadableBuffer(Objects.requireNonNull(bytes, "bytes"));
  }

  /**
   * Returns an {@link InputStream} that reads {@code buffer}. Its {@code available()} is exact (the
   * stream is {@link KnownLength}). When {@code owner} is true, closing the stream closes the
   * buffer; otherwise the caller keeps responsibility for it.
   */
  public static InputStream openStream(ReadableBuffer buffer, boolean owner) {
    return new BufferInputStream(Objects.requireNonNull(buffer, "buffer"), owner);
  }

  /**
   * Returns whether {@code in} is a stream from {@link #openStream}, whose {@code transferTo}
   * writes straight from the buffer with no intermediate array.
   */
  static boolean isBufferStream(InputStream in) {
    return in instanceof BufferInputStream;
  }

  static void checkReadable(ReadableBuffer buffer, int length) {
    if (length < 0) {
      throw new IndexOutOfBoundsException("length < 0: " + length);
    }
    if (length > buffer.readableBytes()) {
      throw new IndexOutOfBoundsException(
          "cannot read " + length + " bytes, only " + buffer.readableBytes() + " readable");
    }
  }

  /** Reads a heap array between a moving read index and a fixed end. */
  private static final class ByteArrayReadableBuffer implements ReadableBuffer {
    private final byte[] bytes;
    private final int end;
    private int index;

    ByteArrayReadableBuffer(byte[] bytes, int index, int end) {
      this.bytes = bytes;
      this.index = index;
      this.end = end;
    }

    @Override
    public int readableBytes() {
      return end - index;
    }

    @Override
    public int readUnsignedByte() {
      checkReadable(this, 1);
      return bytes[index++] & 0xFF;
    }

    @Override
    public int readInt() {
      checkReadable(this, 4);
      int i = index;
      index += 4;
      return (bytes[i] & 0xFF) << 24
          | (bytes[i + 1] & 0xFF) << 16
          | (bytes[i + 2] & 0xFF) << 8
          | (bytes[i + 3] & 0xFF);
    }

    @Override
    public void skipBytes(int length) {
      checkReadable(this, length);
      index += length;
    }

    @Override
    public void readBytes(byte[] dest, int destOffset, int length) {
      Objects.checkFromIndexSize(destOffset, length, dest.length);
      checkReadable(this, length);
      System.arraycopy(bytes, index, dest, destOffset, length);
      index += length;
    }

    @Override
    public void readBytes(ByteBuffer dest) {
      int length = dest.remaining();
      checkReadable(this, length);
      dest.put(bytes, index, length);
      index += length;
    }

    @Override
    public void readBytes(OutputStream dest, int length) throws IOException {
      checkReadable(this, length);
      dest.write(bytes, index, length);
      index += length;
    }

    @Override
    public ReadableBuffer readBytes(int length) {
      checkReadable(this, length);
      ReadableBuffer slice = new ByteArrayReadableBuffer(bytes, index, index + length);
      index += length;
      return slice;
    }

    @Override
    public boolean hasArray() {
      return true;
    }

    @Override
    public byte[] array() {
      return bytes;
    }

    @Override
    public int arrayOffset() {
      return index;
    }

    @Override
    public void close() {
      // Heap memory: nothing to return to a pool; the garbage collector reclaims it.
    }
  }

  /** Reads a {@link ByteBuffer} from its position to its limit. */
  private static final class ByteBufferReadableBuffer implements ReadableBuffer {
    private final ByteBuffer bytes;

    ByteBufferReadableBuffer(ByteBuffer bytes) {
      this.bytes = bytes;
    }

    @Override
    public int readableBytes() {
      return bytes.remaining();
    }

    @Override
    public int readUnsignedByte() {
      checkReadable(this, 1);
      return bytes.get() & 0xFF;
    }

    @Override
    public int readInt() {
      checkReadable(this, 4);
      // Big-endian regardless of the buffer's configured order, as the wire format demands.
      int value = bytes.getInt(bytes.position());
      if (bytes.order() != ByteOrder.BIG_ENDIAN) {
        value = Integer.reverseBytes(value);
      }
      bytes.position(bytes.position() + 4);
      return value;
    }

    @Override
    public void skipBytes(int length) {
      checkReadable(this, length);
      bytes.position(bytes.position() + length);
    }

    @Override
    public void readBytes(byte[] dest, int destOffset, int length) {
      Objects.checkFromIndexSize(destOffset, length, dest.length);
      checkReadable(this, length);
      bytes.get(dest, destOffset, length);
    }

    @Override
    public void readBytes(ByteBuffer dest) {
      int length = dest.remaining();
      checkReadable(this, length);
      dest.put(bytes.slice(bytes.position(), length));
      bytes.position(bytes.position() + length);
    }

    @Override
    public void readBytes(OutputStream dest, int length) throws IOException {
      checkReadable(this, length);
      if (bytes.hasArray()) {
        dest.write(bytes.array(), bytes.arrayOffset() + bytes.position(), length);
        bytes.position(bytes.position() + length);
        return;
      }
      // Direct memory: copy through a small bounded chunk rather than the whole length at once.
      byte[] chunk = new byte[Math.min(length, 8192)];
      int remaining = length;
      while (remaining > 0) {
        int n = Math.min(remaining, chunk.length);
        bytes.get(chunk, 0, n);
        dest.write(chunk, 0, n);
        remaining -= n;
      }
    }

    @Override
    public ReadableBuffer readBytes(int length) {
      checkReadable(this, length);
      ByteBuffer slice = bytes.slice(bytes.position(), length);
      bytes.position(bytes.position() + length);
      return new ByteBufferReadableBuffer(slice);
    }

    @Override
    public boolean hasArray() {
      return bytes.hasArray();
    }

    @Override
    public byte[] array() {
      if (!bytes.hasArray()) {
        throw new UnsupportedOperationException("buffer is not backed by an accessible array");
      }
      return bytes.array();
    }

    @Override
    public int arrayOffset() {
      if (!bytes.hasArray()) {
        throw new UnsupportedOperationException("buffer is not backed by an accessible array");
      }
      return bytes.arrayOffset() + bytes.position();
    }

    @Override
    public void close() {
      // The ByteBuffer's memory is managed by whoever allocated it; nothing to release here.
    }
  }

  /** An {@link InputStream} over a {@link ReadableBuffer}. */
  private static final class BufferInputStream extends InputStream implements KnownLength {
    private final ReadableBuffer buffer;
    private final boolean owner;
    private boolean closed;

    BufferInputStream(ReadableBuffer buffer, boolean owner) {
      this.buffer = buffer;
      this.owner = owner;
    }

    @Override
    public int available() throws IOException {
      checkOpen();
      return buffer.readableBytes();
    }

    @Override
    public int read() throws IOException {
      checkOpen();
      return buffer.readableBytes() == 0 ? -1 : buffer.readUnsignedByte();
    }

    @Override
    public int read(byte[] dest, int destOffset, int length) throws IOException {
      Objects.checkFromIndexSize(destOffset, length, dest.length);
      checkOpen();
      if (length == 0) {
        return 0;
      }
      int readable = buffer.readableBytes();
      if (readable == 0) {
        return -1;
      }
      int n = Math.min(readable, length);
      buffer.readBytes(dest, destOffset, n);
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      checkOpen();
      int skipped = (int) Math.max(0, Math.min(n, buffer.readableBytes()));
      buffer.skipBytes(skipped);
      return skipped;
    }

    /**
     * The rest of the buffer in one array of exactly its size (the inherited version reads through
     * 8 KiB or larger scratch arrays and copies them together, which marshallers calling {@code
     * readAllBytes()} would pay on every message).
     */
    @Override
    public byte[] readAllBytes() throws IOException {
      return readNBytes(Integer.MAX_VALUE);
    }

    /** Up to {@code len} bytes in one array of exactly the size returned. */
    @Override
    public byte[] readNBytes(int len) throws IOException {
      if (len < 0) {
        throw new IllegalArgumentException("len must be >= 0: " + len);
      }
      checkOpen();
      byte[] out = new byte[Math.min(len, buffer.readableBytes())];
      buffer.readBytes(out, 0, out.length);
      return out;
    }

    /** Writes the rest of the buffer straight to {@code out}, with no intermediate array. */
    @Override
    public long transferTo(OutputStream out) throws IOException {
      Objects.requireNonNull(out, "out");
      checkOpen();
      int readable = buffer.readableBytes();
      buffer.readBytes(out, readable);
      return readable;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        if (owner) {
          buffer.close();
        }
      }
    }

    private void checkOpen() throws IOException {
      if (closed) {
        throw new IOException("stream closed");
      }
    }
  }
}
