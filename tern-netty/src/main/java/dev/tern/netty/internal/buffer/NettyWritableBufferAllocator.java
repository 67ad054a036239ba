package dev.tern.netty.internal.buffer;

import dev.tern.internal.wire.WritableBuffer;
import dev.tern.internal.wire.WritableBufferAllocator;
import io.netty.buffer.ByteBufAllocator;

/**
 * Allocates {@link NettyWritableBuffer}s from a channel's (pooled) {@link ByteBufAllocator}.
 * Thread-safe, as Netty allocators are.
 */
public final class NettyWritableBufferAllocator implements WritableBufferAllocator {
  /**
   * The framer asks for at most this much at once; a cap keeps one big message from pinning more.
   */
  private static final int MAX_BUFFER = 1024 * 1024;

  private final ByteBufAllocator allocator;

  public NettyWritableBufferAllocator(ByteBufAllocator allocator) {
    this.allocator = allocator;
  }

  @Override
  public WritableBuffer allocate(int capacityHint) {
    int capacity = Math.max(1, Math.min(capacityHint, MAX_BUFFER));
    // Fixed capacity: the framer sizes its writes by writableBytes().
    return new NettyWritableBuffer(allocator.buffer(capacity, capacity));
  }
}
