package dev.tern.internal.wire;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * A sequence of bytes read once, front to back, that hides where the bytes live (a heap array, a
 * {@link ByteBuffer}, a Netty {@code ByteBuf}, or several of these). Reading consumes bytes.
 *
 * <p>Reading more bytes than {@link #readableBytes()} throws {@link IndexOutOfBoundsException}, as
 * NIO and {@code java.io} do for out-of-range access.
 *
 * <p>Not thread-safe: a buffer belongs to one thread at a time, and whoever holds it must {@link
 * #close()} it when done (pooled implementations return memory to their pool then).
 */
public interface ReadableBuffer extends AutoCloseable {

  /** Returns how many bytes are left to read. */
  int readableBytes();

  /** Reads one byte, returned as 0..255. */
  int readUnsignedByte();

  /** Reads four bytes as a big-endian {@code int}. */
  int readInt();

  /** Discards the next {@code length} bytes. */
  void skipBytes(int length);

  /** Copies the next {@code length} bytes into {@code dest} starting at {@code destOffset}. */
  void readBytes(byte[] dest, int destOffset, int length);

  /** Copies the next {@code dest.remaining()} bytes into {@code dest}, advancing its position. */
  void readBytes(ByteBuffer dest);

  /** Writes the next {@code length} bytes to {@code dest}. */
  void readBytes(OutputStream dest, int length) throws IOException;

  /**
   * Returns a buffer holding the next {@code length} bytes, sharing memory with this one where the
   * implementation can (no copy). The returned buffer must be closed independently of this one.
   */
  ReadableBuffer readBytes(int length);

  /** Returns whether {@link #array()} and {@link #arrayOffset()} are available. */
  boolean hasArray();

  /**
   * Returns the heap array backing the readable bytes (shared, not a copy; do not modify).
   *
   * @throws UnsupportedOperationException if {@link #hasArray()} is false
   */
  byte[] array();

  /**
   * Returns the index in {@link #array()} of the next byte to read.
   *
   * @throws UnsupportedOperationException if {@link #hasArray()} is false
   */
  int arrayOffset();

  /** Releases this buffer. Idempotent; the buffer must not be read afterwards. */
  @Override
  void close();
}
