package dev.tern.netty.internal.server;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.Decompressor;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.MessageFramer;
import dev.tern.internal.wire.WritableBuffer;
import dev.tern.netty.internal.write.OutboundFramer;
import dev.tern.netty.internal.write.WriteQueue;
import dev.tern.spi.HandOff;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerStreamListener;
import dev.tern.spi.WireSizeListener;
import io.netty.buffer.ByteBuf;
import java.io.InputStream;
import java.util.Objects;

/**
 * The application half of one call on a server connection: frames responses on the calling thread
 * into pooled buffers and hands them, with headers, trailers and flow-control requests, to the
 * connection's {@link WriteQueue}. The event-loop half is {@link ServerStreamState}.
 *
 * <p>Thread-safety: the runtime calls one method at a time, except {@link #cancel} (deadline timer)
 * which may race with the rest; the framer sits in an {@link OutboundFramer} behind its own lock.
 * Calls made on the event loop itself (the runtime's {@code streamCreated}) act at once instead of
 * queueing.
 */
final class NettyServerStream implements ServerStream, MessageFramer.Sink {
  private final ServerHandler handler;
  private final ServerStreamState state;
  private final String authority;
  private final Attributes attributes;
  private final OutboundFramer outbound;
  private volatile boolean closed;
  private boolean headersWritten;

  /** The slot this reset call holds until the application is done with it, or null. */
  private volatile ResetCallSlots heldSlot;

  NettyServerStream(
      ServerHandler handler, ServerStreamState state, String authority, Attributes attributes) {
    this.handler = handler;
    this.state = state;
    this.authority = authority;
    this.attributes = attributes;
    this.outbound =
        new OutboundFramer(
            this, handler.bufferAllocator(), handler.unreadResponseLimits().queuedBytes());
  }

  @Override
  public void setListener(ServerStreamListener listener) {
    Objects.requireNonNull(listener, "listener");
    onEventLoop(() -> state.setListener(listener));
  }

  @Override
  public void setDecompressor(Decompressor decompressor) {
    Objects.requireNonNull(decompressor, "decompressor");
    onEventLoop(() -> state.setDecompressor(decompressor));
  }

  @Override
  public void setMaxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("maxInboundMessageSize must be >= 0: " + bytes);
    }
    onEventLoop(() -> state.setMaxInboundMessageSize(bytes));
  }

  /** Event loop: the client reset this call, which holds a slot of {@code slots} until it ends. */
  void holdSlotUntilFinished(ResetCallSlots slots) {
    heldSlot = slots;
  }

  @Override
  public void cancelledCallFinished() {
    ResetCallSlots slots = heldSlot;
    if (slots != null) {
      heldSlot = null;
      slots.release();
    }
  }

  private void onEventLoop(Runnable action) {
    if (handler.inEventLoop()) {
      action.run();
    } else {
      handler.execute(action);
    }
  }

  @Override
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be positive: " + numMessages);
    }
    if (closed) {
      return;
    }
    onEventLoop(() -> state.request(numMessages));
  }

  @Override
  public HandOff handOff() {
    return handler.handOff();
  }

  /** Requests from the application's thread go to the event loop. */
  @Override
  public boolean requestsCrossThreads() {
    return true;
  }

  @Override
  public void writeHeaders(Metadata headers, boolean flush) {
    Objects.requireNonNull(headers, "headers");
    if (closed) {
      return;
    }
    if (headersWritten) {
      throw new IllegalStateException("headers already sent");
    }
    headersWritten = true;
    byte[][] fields = handler.responseFields(headers);
    Runnable write = () -> state.writeHeaders(fields);
    if (flush) {
      handler.execute(write);
    } else {
      // A single response follows: the headers leave with it (or with the trailers).
      handler.executeWithNext(write);
    }
  }

  @Override
  public void writeMessage(InputStream message) {
    Objects.requireNonNull(message, "message");
    if (closed) {
      OutboundFramer.discard(message);
      return;
    }
    int queued = outbound.queuedBytes();
    if (queued >= OutboundFramer.READY_THRESHOLD && overOutboundLimit(queued)) {
      OutboundFramer.discard(message);
      return;
    }
    Status failure = outbound.write(message);
    if (failure != null) {
      cancel(failure);
    }
  }

  /**
   * Applies the outbound limits to a message written although the stream is not ready ({@code
   * queued} bytes wait): with more than the stream's limit waiting, the stream is reset; with more
   * than the connection's limit waiting on all its streams, the connection is closed. Either way
   * the stream takes no more messages. An application that honours {@link #isReady()} never gets
   * here, and a stream's first message in flight never does, however large it is.
   *
   * @return whether the message is to be dropped
   */
  private boolean overOutboundLimit(int queued) {
    if (outbound.isClosed()) {
      return true;
    }
    UnreadResponseLimits limits = handler.unreadResponseLimits();
    if (limits.streamOverLimit(queued)) {
      outbound.dispose();
      Status status = limits.streamStatus();
      handler.execute(() -> state.resetForUnreadResponses(status));
      return true;
    }
    if (limits.connectionOverLimit()) {
      outbound.dispose();
      if (limits.tripConnection()) {
        handler.execute(handler::closeForUnreadResponses);
      }
      return true;
    }
    return false;
  }

  @Override
  public void flush() {
    outbound.flush();
  }

  @Override
  public boolean isReady() {
    return !closed && outbound.belowThreshold();
  }

  @Override
  public void setMessageCompression(boolean enable) {
    outbound.setMessageCompression(enable);
  }

  @Override
  public void setCompressor(Compressor compressor) {
    Objects.requireNonNull(compressor, "compressor");
    outbound.setCompressor(compressor);
  }

  @Override
  public void setWireSizeListener(WireSizeListener listener) {
    Objects.requireNonNull(listener, "listener");
    outbound.setFrameSizeListener(listener::outboundWireSize);
    onEventLoop(() -> state.setFrameSizeListener(listener::inboundWireSize));
  }

  @Override
  public void close(Status status, Metadata trailers) {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(trailers, "trailers");
    if (!outbound.flushAndDispose()) {
      return;
    }
    handler.execute(() -> state.writeTrailers(status, trailers));
  }

  @Override
  public void cancel(Status status) {
    Objects.requireNonNull(status, "status");
    outbound.dispose();
    handler.execute(() -> state.abort(status));
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public String getAuthority() {
    return authority;
  }

  // ---- MessageFramer.Sink (under the outbound framer's lock); the server ends streams with
  // trailers, not DATA

  @Override
  public void deliverFrame(
      WritableBuffer frame, boolean endOfStream, boolean flush, int numMessages) {
    if (frame == null) {
      return;
    }
    ByteBuf buf = outbound.queue(frame);
    int bytes = buf.readableBytes();
    handler.execute(() -> state.writeData(buf, bytes, numMessages));
  }

  // ---- on the event loop

  void onSentBytes(int bytes) {
    if (outbound.sent(bytes)) {
      state.onReady();
    }
  }

  /**
   * The call ended: later writes are dropped and {@link #isReady()} is false. A message the
   * application is still framing (a large one, on another thread) is released once its framer lock
   * frees, so nothing it filled is left behind.
   */
  void onClosed() {
    closed = true;
    outbound.dispose();
  }
}
