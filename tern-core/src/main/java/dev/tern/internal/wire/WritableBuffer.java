package dev.tern.internal.wire;

/**
 * A fixed-capacity buffer that outbound bytes are appended to, hiding where they live (a heap
 * array, a Netty {@code ByteBuf}, ...). Obtained from a {@link WritableBufferAllocator}.
 *
 * <p>Not thread-safe: a buffer belongs to one thread at a time. Its holder either passes it on
 * (ownership moves with it) or calls {@link #release()}.
 */
public interface WritableBuffer {

  /**
   * Appends {@code length} bytes of {@code src} starting at {@code srcOffset}.
   *
   * @throws IndexOutOfBoundsException if {@code length > writableBytes()} or the range is outside
   *     {@code src}
   */
  void write(byte[] src, int srcOffset, int length);

  /**
   * Appends one byte.
   *
   * @throws IndexOutOfBoundsException if the buffer is full
   */
  void write(byte b);

  /** Returns how many more bytes fit. */
  int writableBytes();

  /** Returns how many bytes have been written. */
  int readableBytes();

  /** Releases the buffer without sending it. Idempotent. */
  void release();
}
