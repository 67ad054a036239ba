/**
 * Netty's {@code ByteBuf}s as the runtime's wire buffers: {@link
 * dev.tern.netty.internal.buffer.NettyReadableBuffer} (request and response DATA, read by the
 * runtime's deframer) and {@link dev.tern.netty.internal.buffer.NettyWritableBuffer} from {@link
 * dev.tern.netty.internal.buffer.NettyWritableBufferAllocator} (the framer's output).
 *
 * <p>Threads: a buffer belongs to one thread at a time and is handed over, never shared; the
 * allocator is thread-safe. A leaf of the transport: it uses none of the other internal packages.
 * Exported to {@code dev.tern.web}, whose protocols deframe request bodies with {@code
 * NettyReadableBuffer}.
 */
package dev.tern.netty.internal.buffer;
