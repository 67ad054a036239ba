package dev.tern.netty.internal.write;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Compressor;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.FieldHandles;
import dev.tern.internal.wire.MessageFramer;
import dev.tern.internal.wire.WritableBuffer;
import dev.tern.internal.wire.WritableBufferAllocator;
import dev.tern.netty.internal.buffer.NettyWritableBuffer;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * The outbound half both Netty streams share: messages framed on the application's thread into
 * pooled buffers, and the count of framed bytes handed to the event loop but not yet written, which
 * decides {@code isReady()}.
 *
 * <p>Thread-safety: the runtime calls a stream from one thread at a time, but a cancel (deadline
 * timer, transport) may race with writes, so the framer's own monitor guards it (the framer never
 * leaves this class and takes no lock itself, so the monitor needs no object of its own). The
 * framer calls the stream's sink under the lock; the sink only enqueues on the lock-free {@link
 * WriteQueue}. The queued-byte count is atomic (a {@link VarHandle} on a field rather than an
 * object per stream): added to here, subtracted on the event loop; so is the connection's total,
 * when one is kept.
 */
public final class OutboundFramer {
  /** Below this many queued outbound bytes the stream reports ready (as grpc-java does). */
  public static final int READY_THRESHOLD = 32 * 1024;

  private static final VarHandle QUEUED_BYTES =
      FieldHandles.of(MethodHandles.lookup(), "queuedBytes", int.class);

  @GuardedBy("itself")
  private final MessageFramer framer;

  /** Read and written through {@link #QUEUED_BYTES}. */
  private volatile int queuedBytes;

  /** The queued bytes of every stream of the connection together, or null if not counted. */
  private final LongAdder connectionQueuedBytes;

  /**
   * A framer delivering to {@code sink}; {@code connectionQueuedBytes}, if not null, counts this
   * stream's queued bytes too, with those of the connection's other streams.
   */
  public OutboundFramer(
      MessageFramer.Sink sink, WritableBufferAllocator allocator, LongAdder connectionQueuedBytes) {
    this.framer = new MessageFramer(sink, allocator);
    this.connectionQueuedBytes = connectionQueuedBytes;
  }

  /**
   * Frames {@code message}, which it owns from now on; drops it if the framer is closed.
   *
   * @return why the framer refused the message (too large, unreadable), for the stream to cancel
   *     with, or null
   */
  public Status write(InputStream message) {
    synchronized (framer) {
      if (framer.isClosed()) {
        closeQuietly(message);
        return null;
      }
      try {
        framer.writePayload(message);
        return null;
      } catch (StatusRuntimeException e) {
        return e.getStatus();
      }
    }
  }

  /** Drops {@code message} without framing it (the stream has closed). */
  public static void discard(InputStream message) {
    closeQuietly(message);
  }

  public void flush() {
    synchronized (framer) {
      framer.flush();
    }
  }

  /** See {@link MessageFramer#setFrameSizeListener}. */
  public void setFrameSizeListener(LongConsumer listener) {
    synchronized (framer) {
      framer.setFrameSizeListener(listener);
    }
  }

  public void setMessageCompression(boolean enable) {
    synchronized (framer) {
      framer.setMessageCompression(enable);
    }
  }

  public void setCompressor(Compressor compressor) {
    synchronized (framer) {
      framer.setCompressor(compressor);
    }
  }

  public void setMaxOutboundMessageSize(int bytes) {
    synchronized (framer) {
      framer.setMaxOutboundMessageSize(bytes);
    }
  }

  /** No more messages: what is framed goes out, ending the stream (a client's half-close). */
  public void close() {
    synchronized (framer) {
      framer.close();
    }
  }

  /**
   * Sends what is framed and drops the framer (a server's close, before its trailers).
   *
   * @return false if the framer was already closed or disposed
   */
  public boolean flushAndDispose() {
    synchronized (framer) {
      if (framer.isClosed()) {
        return false;
      }
      framer.flush();
      framer.dispose();
      return true;
    }
  }

  /** Whether the framer takes no more messages (closed or disposed). */
  public boolean isClosed() {
    synchronized (framer) {
      return framer.isClosed();
    }
  }

  /** Drops the framer and what it holds (cancel). */
  public void dispose() {
    synchronized (framer) {
      framer.dispose();
    }
  }

  /**
   * Takes the buffer of a frame the framer delivered to the sink, counting its bytes as queued
   * until {@link #sent} reports them written.
   */
  public ByteBuf queue(WritableBuffer frame) {
    ByteBuf buf = ((NettyWritableBuffer) frame).takeByteBuf();
    int bytes = buf.readableBytes();
    QUEUED_BYTES.getAndAdd(this, bytes);
    if (connectionQueuedBytes != null) {
      connectionQueuedBytes.add(bytes);
    }
    return buf;
  }

  /** Whether fewer than {@link #READY_THRESHOLD} bytes wait for the event loop. */
  public boolean belowThreshold() {
    return queuedBytes < READY_THRESHOLD;
  }

  /** Framed bytes handed to the event loop and not yet written to the socket (or dropped). */
  public int queuedBytes() {
    return queuedBytes;
  }

  /**
   * {@code bytes} queued earlier were written (or dropped). Called on the event loop.
   *
   * @return whether this brought the stream back below the threshold (it became ready)
   */
  public boolean sent(int bytes) {
    int after = (int) QUEUED_BYTES.getAndAdd(this, -bytes) - bytes;
    if (connectionQueuedBytes != null) {
      connectionQueuedBytes.add(-bytes);
    }
    return after < READY_THRESHOLD && after + bytes >= READY_THRESHOLD;
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // Only releasing what the message holds.
    }
  }
}
