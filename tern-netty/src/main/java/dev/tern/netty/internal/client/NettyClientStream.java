package dev.tern.netty.internal.client;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.MessageFramer;
import dev.tern.internal.wire.WritableBuffer;
import dev.tern.netty.internal.write.OutboundFramer;
import dev.tern.netty.internal.write.WriteQueue;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.HandOff;
import dev.tern.spi.WireSizeListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.io.InputStream;
import java.util.Objects;

/**
 * The application half of one call on a {@link NettyClientTransport}: it frames outbound messages
 * on the calling thread into pooled buffers and enqueues them, like every other action, on the
 * connection's {@link WriteQueue} as commands for the {@link ClientHandler}. The event-loop half is
 * {@link ClientStreamState}.
 *
 * <p>Thread-safety: the runtime calls one method at a time, except that {@link #cancel} may race
 * with the others; the framer therefore sits in an {@link OutboundFramer} behind its own lock
 * (uncontended in practice). {@link #isReady()} reads an atomic count of bytes handed to the event
 * loop and not yet written to the socket.
 */
final class NettyClientStream implements ClientStream, MessageFramer.Sink {
  private final NettyClientTransport transport;
  private final ClientHandler handler;
  private final WriteQueue writeQueue;
  private final ClientStreamState state;
  private final AsciiString path;
  private final AsciiString authority;
  private Metadata headers;
  private final OutboundFramer outbound;

  private boolean started;
  private int maxInboundMessageSize = GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE;
  private DecompressorRegistry decompressorRegistry = DecompressorRegistry.getDefaultInstance();
  private volatile boolean closed;
  private volatile Status cancelledBeforeStart;

  /**
   * A call on {@code transport}, whose connection's event-loop end is {@code handler} and whose
   * write queue is {@code writeQueue}.
   */
  NettyClientStream(
      NettyClientTransport transport,
      ClientHandler handler,
      WriteQueue writeQueue,
      AsciiString path,
      AsciiString authority,
      Metadata headers) {
    this.transport = transport;
    this.handler = handler;
    this.writeQueue = writeQueue;
    this.path = path;
    this.authority = authority;
    this.headers = headers;
    this.outbound = new OutboundFramer(this, transport.bufferAllocator(), null);
    this.state = new ClientStreamState(handler, this);
  }

  @Override
  public void setMaxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("maxInboundMessageSize must be >= 0: " + bytes);
    }
    maxInboundMessageSize = bytes;
  }

  @Override
  public void setMaxOutboundMessageSize(int bytes) {
    outbound.setMaxOutboundMessageSize(bytes);
  }

  @Override
  public void setDecompressorRegistry(DecompressorRegistry registry) {
    decompressorRegistry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public void start(ClientStreamListener listener) {
    Objects.requireNonNull(listener, "listener");
    if (started) {
      throw new IllegalStateException("already started");
    }
    started = true;
    Status cancelled = cancelledBeforeStart;
    if (cancelled != null) {
      state.setListener(listener);
      writeQueue.enqueue(() -> state.onNotStarted(cancelled, RpcProgress.DROPPED));
      return;
    }
    // Like the listener, set here: the enqueue below publishes them to the event loop, which
    // touches the state only once the stream's creation runs.
    state.setListener(listener);
    state.configure(maxInboundMessageSize, decompressorRegistry);
    Runnable open =
        handler.prepareStream(
            state, transport.scheme(), path, authority, transport.userAgent(), headers);
    headers = null;
    writeQueue.enqueue(open);
  }

  @Override
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be positive: " + numMessages);
    }
    if (closed) {
      return;
    }
    writeQueue.enqueue(() -> state.request(numMessages));
  }

  /** Requests from the application's thread go to the event loop. */
  @Override
  public boolean requestsCrossThreads() {
    return true;
  }

  @Override
  public void writeMessage(InputStream message) {
    Objects.requireNonNull(message, "message");
    if (closed) {
      OutboundFramer.discard(message);
      return;
    }
    Status failure = outbound.write(message);
    if (failure != null) {
      cancel(failure);
    }
  }

  @Override
  public void flush() {
    outbound.flush();
  }

  @Override
  public boolean isReady() {
    return started && !closed && outbound.belowThreshold();
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
    // Read on the event loop only once start() has enqueued the stream's creation.
    state.setFrameSizeListener(listener::inboundWireSize);
  }

  @Override
  public void halfClose() {
    if (!closed) {
      outbound.close();
    }
  }

  @Override
  public void cancel(Status reason) {
    Objects.requireNonNull(reason, "reason");
    outbound.dispose();
    if (!started) {
      if (cancelledBeforeStart == null) {
        cancelledBeforeStart = reason;
      }
      return;
    }
    writeQueue.enqueue(() -> handler.cancelStream(state, reason));
  }

  @Override
  public Attributes getAttributes() {
    return transport.getAttributes();
  }

  @Override
  public HandOff handOff() {
    return handler.handOff();
  }

  // ---- MessageFramer.Sink (called under the outbound framer's lock)

  @Override
  public void deliverFrame(
      WritableBuffer frame, boolean endOfStream, boolean flush, int numMessages) {
    ByteBuf buf = frame == null ? Unpooled.EMPTY_BUFFER : outbound.queue(frame);
    int bytes = buf.readableBytes();
    writeQueue.enqueue(() -> handler.sendData(state, buf, endOfStream, bytes, numMessages));
  }

  // ---- called on the event loop

  /** {@code bytes} handed over earlier were written (or dropped); may make the stream ready. */
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

  @Override
  public String toString() {
    return "NettyClientStream{" + path + "}";
  }
}
