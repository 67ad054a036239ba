package dev.tern.http3.internal.server;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.Decompressor;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.MessageFramer;
import dev.tern.internal.wire.WritableBuffer;
import dev.tern.netty.internal.grpc.GrpcFields;
import dev.tern.netty.internal.server.UnreadResponseLimits;
import dev.tern.netty.internal.write.OutboundFramer;
import dev.tern.spi.HandOff;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerStreamListener;
import dev.tern.spi.WireSizeListener;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.io.InputStream;
import java.util.Objects;

/**
 * The application half of one call on an HTTP/3 request stream: frames responses on the calling
 * thread with the same {@link OutboundFramer} the HTTP/2 streams use and hands them, with headers,
 * trailers and requests for more messages, to the stream's event loop, where {@link
 * Http3RequestStream} writes them. {@link #isReady()} is false while 32 KiB or more wait to be
 * written (QUIC's flow control holds them when the client reads slowly).
 *
 * <p>Thread-safety: the runtime calls one method at a time, except {@link #cancel} (deadline
 * timer), which may race with the rest; the framer is behind its own lock. Calls made on the event
 * loop itself act at once.
 */
final class Http3ServerStream implements ServerStream, MessageFramer.Sink {
  private final Http3RequestStream state;
  private final EventLoop eventLoop;
  private final String authority;
  private final Attributes attributes;
  private final OutboundFramer outbound;
  private final UnreadResponseLimits unreadLimits;
  private final HandOff handOff;
  private volatile boolean closed;
  private boolean headersWritten;

  Http3ServerStream(
      Http3RequestStream state,
      QuicStreamChannel channel,
      String authority,
      Attributes attributes,
      HandOff handOff) {
    this.state = state;
    this.handOff = handOff;
    this.eventLoop = channel.eventLoop();
    this.authority = authority;
    this.attributes = attributes;
    this.unreadLimits = state.unreadLimits();
    this.outbound = new OutboundFramer(this, state.bufferAllocator(), unreadLimits.queuedBytes());
  }

  private void onEventLoop(Runnable action) {
    if (eventLoop.inEventLoop()) {
      action.run();
    } else {
      eventLoop.execute(action);
    }
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

  @Override
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be positive: " + numMessages);
    }
    if (!closed) {
      onEventLoop(() -> state.request(numMessages));
    }
  }

  /**
   * The connection's hand-off ({@link Http3ServerConnection#handOff}): the calls a loop reads from
   * its datagrams reach the executor after its reads, not one by one during them.
   */
  @Override
  public HandOff handOff() {
    return handOff;
  }

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
    byte[][] fields = GrpcFields.response(headers);
    onEventLoop(() -> state.writeHeaders(fields));
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
   * HTTP/2's outbound limits for a message written although the stream is not ready ({@code queued}
   * bytes wait, held in the QUIC stream's queue while the client's flow control is closed): over
   * the call's bound, the stream is reset with H3_EXCESSIVE_LOAD; over the connection's, the
   * connection is closed. Either way the stream takes no more messages, and the call ends
   * RESOURCE_EXHAUSTED. An application that honours {@link #isReady()} never gets here.
   *
   * @return whether the message is to be dropped
   */
  private boolean overOutboundLimit(int queued) {
    if (outbound.isClosed()) {
      return true;
    }
    if (unreadLimits.streamOverLimit(queued)) {
      outbound.dispose();
      Status status = unreadLimits.streamStatus();
      onEventLoop(() -> state.resetForUnreadResponses(status));
      return true;
    }
    if (unreadLimits.connectionOverLimit()) {
      outbound.dispose();
      if (unreadLimits.tripConnection()) {
        onEventLoop(state::closeConnectionForUnreadResponses);
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
    onEventLoop(() -> state.writeTrailers(status, trailers));
  }

  @Override
  public void cancel(Status status) {
    Objects.requireNonNull(status, "status");
    outbound.dispose();
    onEventLoop(() -> state.abort(status));
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public String getAuthority() {
    return authority;
  }

  // ---- MessageFramer.Sink (under the framer's lock)

  @Override
  public void deliverFrame(
      WritableBuffer frame, boolean endOfStream, boolean flush, int numMessages) {
    if (frame == null) {
      return;
    }
    ByteBuf buf = outbound.queue(frame);
    int bytes = buf.readableBytes();
    onEventLoop(() -> state.writeData(buf, bytes));
  }

  // ---- on the event loop

  void onSentBytes(int bytes) {
    if (outbound.sent(bytes)) {
      state.onReady();
    }
  }

  void onClosed() {
    closed = true;
    outbound.dispose();
  }
}
