package dev.tern.internal.wire;

/**
 * Creates {@link WritableBuffer}s; the transport provides one so outbound frames are written
 * straight into its own memory (for Netty, pooled direct buffers).
 *
 * <p>Implementations must be thread-safe.
 */
public interface WritableBufferAllocator {

  /**
   * Returns a new empty buffer. {@code capacityHint} is the size the caller would like; the buffer
   * may be smaller or larger (callers honour {@link WritableBuffer#writableBytes()}) but always has
   * room for at least one byte.
   */
  WritableBuffer allocate(int capacityHint);
}
