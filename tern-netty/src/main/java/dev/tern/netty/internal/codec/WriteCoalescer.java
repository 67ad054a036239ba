package dev.tern.netty.internal.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.nio.channels.ClosedChannelException;
import java.util.Arrays;

/**
 * Merges the small buffers written between two flushes into one buffer, so the channel's outbound
 * buffer holds one entry instead of one per frame piece. The HTTP/2 codec writes every frame as
 * separate buffers (a 9-byte frame header, then the header block or payload), so a unary response
 * is five or six writes, each with its own outbound entry, promise and gather-write slot; merged
 * they are one entry and one plain socket write.
 *
 * <p>A buffer of at most {@link #MAX_COPY_BYTES} is held; when a second small buffer follows, both
 * are copied into one pooled buffer of {@link #MERGE_CAPACITY} bytes, which later small buffers
 * join until it is full. Anything else (a larger buffer, a non-buffer message, a write with the
 * void promise) first sends what is held, so the order of bytes on the wire never changes. A lone
 * held buffer is passed on unchanged, not copied. Flush, close, disconnect and deregister send what
 * is held first. The promises of merged writes complete, in the order they were written, when the
 * merged buffer's write does; a failure fails them all with its cause.
 *
 * <p>Bytes held here are not yet counted by the channel's writability; at most {@link
 * #MERGE_CAPACITY} bytes are held, and only until the end of the current event-loop task's flush.
 *
 * <p>Event loop only, like every channel handler; one instance per channel.
 */
public final class WriteCoalescer extends ChannelOutboundHandlerAdapter {
  /** Buffers up to this size are copied; larger ones pass through. */
  static final int MAX_COPY_BYTES = 2048;

  /** Size of a merge buffer; a merge that would overflow it is sent and a new one started. */
  static final int MERGE_CAPACITY = 8192;

  /** The first small buffer since the last send, not yet copied; null if none. */
  private ByteBuf held;

  /** The merge buffer, once a second small buffer arrived; null otherwise. */
  private ByteBuf merged;

  /** The promises of the held or merged bytes, in write order. */
  private ChannelPromise[] promises = new ChannelPromise[8];

  private int promiseCount;

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof ByteBuf)
        || promise.isVoid()
        || ((ByteBuf) msg).readableBytes() > MAX_COPY_BYTES) {
      sendHeld(ctx);
      ctx.write(msg, promise);
      return;
    }
    ByteBuf buf = (ByteBuf) msg;
    if (merged != null && merged.writerIndex() + buf.readableBytes() > MERGE_CAPACITY) {
      sendHeld(ctx);
    }
    if (held == null && merged == null) {
      held = buf;
    } else {
      if (merged == null) {
        merged = ctx.alloc().ioBuffer(MERGE_CAPACITY);
        moveInto(held, merged);
        held = null;
      }
      moveInto(buf, merged);
    }
    addPromise(promise);
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    sendHeld(ctx);
    ctx.flush();
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    sendHeld(ctx);
    ctx.close(promise);
  }

  @Override
  public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
    sendHeld(ctx);
    ctx.disconnect(promise);
  }

  @Override
  public void deregister(ChannelHandlerContext ctx, ChannelPromise promise) {
    sendHeld(ctx);
    ctx.deregister(promise);
  }

  /** Removed from the pipeline with bytes still held: they can no longer be sent. */
  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    ByteBuf pending = held != null ? held : merged;
    held = null;
    merged = null;
    if (pending != null) {
      pending.release();
      Batch batch = takePromises();
      if (batch != null) {
        batch.fail(new ClosedChannelException());
      }
    }
  }

  /** Passes what is held down the pipeline (without flushing). */
  private void sendHeld(ChannelHandlerContext ctx) {
    if (held != null) {
      // One buffer, uncopied: it leaves with its own promise.
      ByteBuf single = held;
      ChannelPromise promise = promises[0];
      held = null;
      promises[0] = null;
      promiseCount = 0;
      ctx.write(single, promise);
    } else if (merged != null) {
      ByteBuf pending = merged;
      merged = null;
      ctx.write(pending, ctx.newPromise()).addListener(takePromises());
    }
  }

  private void addPromise(ChannelPromise promise) {
    if (promiseCount == promises.length) {
      promises = Arrays.copyOf(promises, promiseCount * 2);
    }
    promises[promiseCount++] = promise;
  }

  private Batch takePromises() {
    if (promiseCount == 0) {
      return null;
    }
    Batch batch = new Batch(Arrays.copyOf(promises, promiseCount));
    Arrays.fill(promises, 0, promiseCount, null);
    promiseCount = 0;
    return batch;
  }

  private static void moveInto(ByteBuf from, ByteBuf to) {
    try {
      to.writeBytes(from);
    } finally {
      from.release();
    }
  }

  /** The promises of one merged buffer, completed together when its write completes. */
  private static final class Batch implements ChannelFutureListener {
    private final ChannelPromise[] promises;

    Batch(ChannelPromise[] promises) {
      this.promises = promises;
    }

    @Override
    public void operationComplete(ChannelFuture future) {
      if (future.isSuccess()) {
        for (ChannelPromise promise : promises) {
          promise.trySuccess();
        }
      } else {
        fail(future.cause());
      }
    }

    void fail(Throwable cause) {
      for (ChannelPromise promise : promises) {
        promise.tryFailure(cause);
      }
    }
  }
}
