package dev.tern.internal.wire;

/**
 * Allocates {@link ByteArrayWritableBuffer}s, with the requested capacity clamped to {@code
 * [minCapacity, maxCapacity]}. A small maximum makes framing code split messages across buffers,
 * which tests use to exercise those paths.
 *
 * <p>Immutable; thread-safe.
 */
public final class ByteArrayWritableBufferAllocator implements WritableBufferAllocator {

  private final int minCapacity;
  private final int maxCapacity;

  /** Creates an allocator that gives each buffer exactly the hinted capacity (at least 1 byte). */
  public ByteArrayWritableBufferAllocator() {
    this(1, Integer.MAX_VALUE);
  }

  /**
   * Creates an allocator whose buffers hold between {@code minCapacity} and {@code maxCapacity}
   * bytes.
   *
   * @throws IllegalArgumentException if {@code minCapacity < 1} or {@code maxCapacity <
   *     minCapacity}
   */
  public ByteArrayWritableBufferAllocator(int minCapacity, int maxCapacity) {
    if (minCapacity < 1) {
      throw new IllegalArgumentException("minCapacity < 1: " + minCapacity);
    }
    if (maxCapacity < minCapacity) {
      throw new IllegalArgumentException(
          "maxCapacity " + maxCapacity + " < minCapacity " + minCapacity);
    }
    this.minCapacity = minCapacity;
    this.maxCapacity = maxCapacity;
  }

  @Override
  public ByteArrayWritableBuffer allocate(int capacityHint) {
    return new ByteArrayWritableBuffer(Math.min(Math.max(capacityHint, minCapacity), maxCapacity));
  }
}
