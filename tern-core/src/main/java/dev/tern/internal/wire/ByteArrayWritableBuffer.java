package dev.tern.internal.wire;

import java.util.Arrays;
import java.util.Objects;

/**
 * A {@link WritableBuffer} over a heap {@code byte[]}, for in-memory transports and tests.
 *
 * <p>Not thread-safe: a buffer belongs to one thread at a time.
 */
public final class ByteArrayWritableBuffer implements WritableBuffer {

  private static final byte[] RELEASED = new byte[0];

  private byte[] array;
  private int written;

  /** Creates an empty buffer that holds up to {@code capacity} bytes. */
  public ByteArrayWritableBuffer(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity < 0: " + capacity);
    }
    this.array = new byte[capacity];
  }

  @Override
  public void write(byte[] src, int srcOffset, int length) {
    Objects.checkFromIndexSize(srcOffset, length, src.length);
    checkWritable(length);
    System.arraycopy(src, srcOffset, array, written, length);
    written += length;
  }

  @Override
  public void write(byte b) {
    checkWritable(1);
    array[written++] = b;
  }

  @Override
  public int writableBytes() {
    return array.length - written;
  }

  @Override
  public int readableBytes() {
    return written;
  }

  /** Drops the array so a use after release fails loudly. */
  @Override
  public void release() {
    array = RELEASED;
    written = 0;
  }

  /**
   * Returns the backing array (not a copy); bytes {@code [0, readableBytes())} are the written
   * ones.
   */
  public byte[] array() {
    return array;
  }

  /** Returns a copy of the written bytes. */
  public byte[] toByteArray() {
    return Arrays.copyOf(array, written);
  }

  /** Returns a {@link ReadableBuffer} over the written bytes, sharing this buffer's array. */
  public ReadableBuffer toReadableBuffer() {
    return ReadableBuffers.wrap(array, 0, written);
  }

  private void checkWritable(int length) {
    if (length > array.length - written) {
      throw new IndexOutOfBoundsException(
          "cannot write " + length + " bytes, only " + (array.length - written) + " writable");
    }
  }
}
