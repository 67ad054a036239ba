package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Heap buffers that are remembered, so a test can check that every one it, or the code under test,
 * allocated from here was released.
 */
final class TrackingAllocator extends AbstractByteBufAllocator {
  private final List<ByteBuf> allocated = new ArrayList<>();

  TrackingAllocator() {
    super(false);
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    ByteBuf buffer = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
    allocated.add(buffer);
    return buffer;
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return newHeapBuffer(initialCapacity, maxCapacity); // heap only: simpler to inspect
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  /** A buffer holding {@code bytes}. */
  ByteBuf of(byte[] bytes, int offset, int length) {
    return heapBuffer(length).writeBytes(bytes, offset, length);
  }

  int allocations() {
    return allocated.size();
  }

  void assertAllReleased() {
    for (ByteBuf buffer : allocated) {
      assertThat(buffer.refCnt()).as("reference count of %s", buffer).isZero();
    }
  }
}
