package dev.tern.netty.internal.write;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.Arrays;

/**
 * The DATA payloads of one flush that stay in the buffers their messages were framed into, each
 * with the place in the flush's buffer it belongs after (the end of its frame header). At the flush
 * they and the pieces of that buffer between them are written in order, so a large message reaches
 * the socket without being copied into the flush's buffer first.
 *
 * <p>Each piece is a write of its own rather than a component of one composite buffer: the channel
 * keeps one NIO view per written buffer, where a composite's views are made anew at each attempt to
 * write it (a 1 MiB message is some 130 pieces, and a large write takes many attempts).
 *
 * <p>Event loop only, owned by {@link ConnectionWrites}; not thread-safe.
 */
final class SplicedPayloads {
  private ByteBuf[] payloads = new ByteBuf[8];
  private int[] positions = new int[8];
  private int count;

  /**
   * {@code payload} (ownership taken) follows the flush's buffer's first {@code position} bytes.
   */
  void add(int position, ByteBuf payload) {
    if (count == payloads.length) {
      payloads = Arrays.copyOf(payloads, count * 2);
      positions = Arrays.copyOf(positions, count * 2);
    }
    payloads[count] = payload;
    positions[count] = position;
    count++;
  }

  boolean isEmpty() {
    return count == 0;
  }

  /**
   * Writes (without flushing) the bytes of the flush in order, {@code out}'s with every payload in
   * its place, all but the last piece, and returns that piece for the flush to write with its
   * listener: the writes complete in order, so its future completes when the whole flush is
   * written, or fails if any of it does. Takes {@code out}'s reference and the payloads'.
   */
  ByteBuf writeAllButLast(ChannelHandlerContext ctx, ByteBuf out) {
    ByteBuf last = null;
    int from = out.readerIndex();
    for (int i = 0; i < count; i++) {
      int at = positions[i];
      if (at > from) {
        last = write(ctx, last, out.retainedSlice(from, at - from));
      }
      last = write(ctx, last, payloads[i]);
      payloads[i] = null;
      from = at;
    }
    if (out.writerIndex() > from) {
      last = write(ctx, last, out.retainedSlice(from, out.writerIndex() - from));
    }
    count = 0;
    out.release();
    return last;
  }

  /** Writes {@code previous} (if any) and returns {@code next}, which is written after it. */
  private static ByteBuf write(ChannelHandlerContext ctx, ByteBuf previous, ByteBuf next) {
    if (previous != null) {
      ctx.write(previous); // its failure fails the last piece's future too, which is heard
    }
    return next;
  }

  /** The flush will not happen: releases every payload. */
  void release() {
    for (int i = 0; i < count; i++) {
      payloads[i].release();
      payloads[i] = null;
    }
    count = 0;
  }
}
