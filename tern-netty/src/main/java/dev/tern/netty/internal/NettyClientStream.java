package dev.tern.netty.internal;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.GrpcHeaders;
import dev.tern.internal.MessageFramer;
import dev.tern.internal.WritableBuffer;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application half of one call on a {@link NettyClientTransport}: it frames outbound messages
 * on the calling thread into pooled buffers and hands them, like every other action, to the
 * connection's {@link WriteQueue}. The event-loop half is {@link ClientStreamState}.
 *
 * <p>Thread-safety: the runtime calls one method at a time, except that {@link #cancel} may race
 * with the others; the framer is therefore guarded by {@code framerLock} (uncontended in practice),
 * which is never held while enqueueing work or calling a listener. {@link #isReady()} reads an
 * atomic count of bytes handed to the event loop and not yet written to the socket.
 */
final class NettyClientStream implements ClientStream, MessageFramer.Sink {
  /** Below this many queued outbound bytes the stream reports ready (as grpc-java does). */
  static final int READY_THRESHOLD = 32 * 1024;

  private final ClientHandler handler;
  private final ClientStreamState state;
  private final AsciiString path;
  private final AsciiString authority;
  private Metadata headers;
  private final Object framerLock = new Object();
  private final MessageFramer framer; // guarded by framerLock
  private final AtomicInteger queuedBytes = new AtomicInteger();

  private boolean started;
  private int maxInboundMessageSize = GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE;
  private DecompressorRegistry decompressorRegistry = DecompressorRegistry.getDefaultInstance();
  private volatile boolean closed;
  private volatile Status cancelledBeforeStart;

  NettyClientStream(
      ClientHandler handler, String fullMethodName, String authority, Metadata headers) {
    this.handler = handler;
    this.path = new AsciiString("/" + fullMethodName);
    this.authority = new AsciiString(authority);
    this.headers = headers;
    this.framer = new MessageFramer(this, handler.bufferAllocator());
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
    synchronized (framerLock) {
      framer.setMaxOutboundMessageSize(bytes);
    }
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
      handler.execute(() -> state.onNotStarted(cancelled, RpcProgress.DROPPED));
      return;
    }
    state.setListener(listener);
    Http2Headers http2Headers =
        OutboundHeaders.request(handler.scheme(), path, authority, handler.userAgent(), headers);
    headers = null;
    int maxInbound = maxInboundMessageSize;
    DecompressorRegistry registry = decompressorRegistry;
    handler.execute(
        () -> {
          state.configure(maxInbound, registry);
          handler.createStream(state, http2Headers);
        });
  }

  @Override
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be positive: " + numMessages);
    }
    if (closed) {
      return;
    }
    handler.execute(() -> state.request(numMessages));
  }

  @Override
  public void writeMessage(InputStream message) {
    Objects.requireNonNull(message, "message");
    Status failure = null;
    synchronized (framerLock) {
      if (closed || framer.isClosed()) {
        closeQuietly(message);
        return;
      }
      try {
        framer.writePayload(message);
      } catch (StatusRuntimeException e) {
        failure = e.getStatus();
      }
    }
    if (failure != null) {
      cancel(failure);
    }
  }

  @Override
  public void flush() {
    synchronized (framerLock) {
      framer.flush();
    }
  }

  @Override
  public boolean isReady() {
    return started && !closed && queuedBytes.get() < READY_THRESHOLD;
  }

  @Override
  public void setMessageCompression(boolean enable) {
    synchronized (framerLock) {
      framer.setMessageCompression(enable);
    }
  }

  @Override
  public void setCompressor(Compressor compressor) {
    Objects.requireNonNull(compressor, "compressor");
    synchronized (framerLock) {
      framer.setCompressor(compressor);
    }
  }

  @Override
  public void halfClose() {
    synchronized (framerLock) {
      if (closed) {
        return;
      }
      framer.close();
    }
  }

  @Override
  public void cancel(Status reason) {
    Objects.requireNonNull(reason, "reason");
    synchronized (framerLock) {
      framer.dispose();
    }
    if (!started) {
      if (cancelledBeforeStart == null) {
        cancelledBeforeStart = reason;
      }
      return;
    }
    handler.execute(() -> handler.cancelStream(state, reason));
  }

  @Override
  public Attributes getAttributes() {
    return handler.attributes();
  }

  // ---- MessageFramer.Sink (called under framerLock)

  @Override
  public void deliverFrame(
      WritableBuffer frame, boolean endOfStream, boolean flush, int numMessages) {
    ByteBuf buf =
        frame == null ? Unpooled.EMPTY_BUFFER : ((NettyWritableBuffer) frame).takeByteBuf();
    int bytes = buf.readableBytes();
    queuedBytes.addAndGet(bytes);
    handler.execute(() -> handler.sendData(state, buf, endOfStream, bytes));
  }

  // ---- called on the event loop

  /** {@code bytes} handed over earlier were written (or dropped); may make the stream ready. */
  void onSentBytes(int bytes) {
    int after = queuedBytes.addAndGet(-bytes);
    if (after < READY_THRESHOLD && after + bytes >= READY_THRESHOLD) {
      state.onReady();
    }
  }

  /** The call ended: later writes are dropped and {@link #isReady()} is false. */
  void onClosed() {
    closed = true;
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // Only releasing what the message holds.
    }
  }

  @Override
  public String toString() {
    return "NettyClientStream{" + path + "}";
  }
}
