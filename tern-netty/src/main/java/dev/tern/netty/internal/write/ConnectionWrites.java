package dev.tern.netty.internal.write;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;

/**
 * What the write sides of both ends of a connection on Tern's HTTP/2 engine share: the one buffer
 * every frame of a flush is written into (made when the first frame needs it, handed to the channel
 * at the flush), the reads of the engine, the flushes held back during them, and the write that
 * fails for the network.
 *
 * <p>Large DATA payloads are not copied into that buffer: the engine writes their frame headers
 * there and hands the payloads to {@link #splice}, and the flush writes the pieces of the buffer
 * and the payloads in their order ({@link SplicedPayloads}), the last with the flush's listener.
 *
 * <p>A flush asked for while the engine reads a chunk waits for the read's end: the engine writes
 * its answers to a chunk into the flush's buffer, and a flush asked for meanwhile (a protocol
 * answering a request at once, a connection closing when its last stream ends) would hand that
 * buffer to the channel while the engine still writes into it.
 *
 * <p>A write the network fails (a reset, a broken pipe) closes the channel without an {@code
 * exceptionCaught}; the listener of each {@link #write} hands its failure to {@link
 * #onNetworkFailure} first, so the calls it ends say it was an I/O error, as they do when a read
 * fails.
 *
 * <p>The client's and the server's write sides extend this (rather than holding one, a small object
 * more on every connection) and add what each reports of the bytes that left.
 *
 * <p>Event loop only; not thread-safe.
 */
public abstract class ConnectionWrites {
  private final ChannelFutureListener networkFailures = this::checkNetworkFailure;

  private ChannelHandlerContext ctx;
  private ByteBuf out;

  /** The payloads spliced into {@link #out}; made at the first (most connections never splice). */
  private SplicedPayloads spliced;

  /** The channel is gone: nothing is written any more (the closed engine writes nothing). */
  private boolean discarded;

  private boolean reading;
  private boolean flushAsked;
  private boolean closeAsked;

  /** The handler's context, before the first frame is written. */
  public final void attach(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /** The handler's context, or null before {@link #attach}. */
  protected final ChannelHandlerContext ctx() {
    return ctx;
  }

  /** The buffer of this flush (an empty one, never written to, once the channel is gone). */
  public final ByteBuf out() {
    if (discarded) {
      return Unpooled.EMPTY_BUFFER;
    }
    if (out == null) {
      out = ctx.alloc().buffer();
    }
    return out;
  }

  /**
   * The engine's {@code Http2DataSplicer}: the next {@code length} bytes of {@code data} follow
   * what this flush's buffer holds so far, without a copy. Returns false, taking nothing, for a
   * buffer other than this flush's (or once the channel is gone).
   */
  public final boolean splice(ByteBuf out, ByteBuf data, int length) {
    if (discarded || out != this.out) {
      return false;
    }
    if (spliced == null) {
      spliced = new SplicedPayloads();
    }
    spliced.add(out.writerIndex(), data.readRetainedSlice(length));
    return true;
  }

  /**
   * The engine reads {@code in} (which this releases), writing its answers into this flush's
   * buffer; a flush asked for meanwhile happens at the end.
   */
  public final void read(ByteBuf in) {
    reading = true;
    try {
      receive(in, out());
    } finally {
      in.release();
      reading = false;
      if (flushAsked) {
        boolean close = closeAsked;
        flushAsked = false;
        closeAsked = false;
        flush(close);
      }
    }
  }

  /** Hands {@code in} to the engine, whose answers go into {@code out}. */
  protected abstract void receive(ByteBuf in, ByteBuf out);

  /**
   * Writes this flush's buffer, if anything is in it, and flushes the channel; during a read, at
   * the read's end.
   *
   * @param close close the channel once the buffer is written
   */
  public final void flush(boolean close) {
    if (reading) {
      flushAsked = true;
      closeAsked |= close;
      return;
    }
    if (ctx == null) {
      return;
    }
    ByteBuf written = out;
    out = null;
    if (written != null && spliced != null && !spliced.isEmpty()) {
      written = spliced.writeAllButLast(ctx, written);
    } else if (written != null && !written.isReadable()) {
      written.release();
      written = null;
    }
    flush(written, close);
  }

  /**
   * The flush itself: writes {@code written} (null when nothing was written into the buffer) with
   * {@link #write}, reports what left, and flushes the channel, closing it once written if {@code
   * close}.
   */
  protected abstract void flush(ByteBuf written, boolean close);

  /**
   * Writes and flushes {@code buffer}. The caller adds one listener to the future, which calls
   * {@link #checkNetworkFailure} (or is {@link #networkFailures()}): a promise with one listener
   * holds it in a field, a second would cost it a list.
   */
  protected final ChannelFuture write(ByteBuf buffer) {
    return ctx.writeAndFlush(buffer);
  }

  /** The listener for a write with nothing else to hear: {@link #checkNetworkFailure}. */
  protected final ChannelFutureListener networkFailures() {
    return networkFailures;
  }

  /** Hands the write's failure to {@link #onNetworkFailure} if the network caused it. */
  protected final void checkNetworkFailure(Future<?> write) {
    Throwable cause = write.cause();
    if (cause instanceof IOException failure && !(cause instanceof ClosedChannelException)) {
      onNetworkFailure(failure);
    }
  }

  /**
   * A write failed for the network (not for a channel closed already): the channel is closing, and
   * the calls it ends should say why.
   */
  protected abstract void onNetworkFailure(IOException failure);

  /** The channel is gone: releases the buffer of the flush that will not happen. */
  public final void discard() {
    discarded = true;
    if (out != null) {
      out.release();
      out = null;
    }
    if (spliced != null) {
      spliced.release();
    }
    discardReports();
  }

  /** The channel is gone: what was waiting to be reported will not be written. */
  protected abstract void discardReports();
}
