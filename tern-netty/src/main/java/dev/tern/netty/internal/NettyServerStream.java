package dev.tern.netty.internal;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.Decompressor;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.MessageFramer;
import dev.tern.internal.WritableBuffer;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerStreamListener;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application half of one call on a server connection: frames responses on the calling thread
 * into pooled buffers and hands them, with headers, trailers and flow-control requests, to the
 * connection's {@link WriteQueue}. The event-loop half is {@link ServerStreamState}.
 *
 * <p>Thread-safety: the runtime calls one method at a time, except {@link #cancel} (deadline timer)
 * which may race with the rest; the framer is guarded by {@code framerLock}, never held while
 * calling out. Calls made on the event loop itself (the runtime's {@code streamCreated}) act at
 * once instead of queueing.
 */
final class NettyServerStream implements ServerStream, MessageFramer.Sink {
  private final ServerHandler handler;
  private final ServerStreamState state;
  private final String authority;
  private final Attributes attributes;
  private final Object framerLock = new Object();
  private final MessageFramer framer; // guarded by framerLock
  private final AtomicInteger queuedBytes = new AtomicInteger();
  private volatile boolean closed;
  private boolean headersWritten;

  NettyServerStream(
      ServerHandler handler, ServerStreamState state, String authority, Attributes attributes) {
    this.handler = handler;
    this.state = state;
    this.authority = authority;
    this.attributes = attributes;
    this.framer = new MessageFramer(this, handler.bufferAllocator());
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
  public void writeHeaders(Metadata headers, boolean flush) {
    Objects.requireNonNull(headers, "headers");
    if (closed) {
      return;
    }
    if (headersWritten) {
      throw new IllegalStateException("headers already sent");
    }
    headersWritten = true;
    Http2Headers http2Headers = OutboundHeaders.response(headers);
    handler.execute(() -> state.writeHeaders(http2Headers));
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
    return !closed && queuedBytes.get() < NettyClientStream.READY_THRESHOLD;
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
  public void close(Status status, Metadata trailers) {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(trailers, "trailers");
    synchronized (framerLock) {
      if (framer.isClosed()) {
        return;
      }
      framer.flush();
      framer.dispose();
    }
    handler.execute(() -> state.writeTrailers(status, trailers));
  }

  @Override
  public void cancel(Status status) {
    Objects.requireNonNull(status, "status");
    synchronized (framerLock) {
      framer.dispose();
    }
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

  // ---- MessageFramer.Sink (under framerLock); the server ends streams with trailers, not DATA

  @Override
  public void deliverFrame(
      WritableBuffer frame, boolean endOfStream, boolean flush, int numMessages) {
    if (frame == null) {
      return;
    }
    ByteBuf buf = ((NettyWritableBuffer) frame).takeByteBuf();
    int bytes = buf.readableBytes();
    queuedBytes.addAndGet(bytes);
    handler.execute(() -> state.writeData(buf, bytes));
  }

  // ---- on the event loop

  void onSentBytes(int bytes) {
    int after = queuedBytes.addAndGet(-bytes);
    if (after < NettyClientStream.READY_THRESHOLD
        && after + bytes >= NettyClientStream.READY_THRESHOLD) {
      state.onReady();
    }
  }

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
}
