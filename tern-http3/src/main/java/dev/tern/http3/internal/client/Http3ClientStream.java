package dev.tern.http3.internal.client;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.MessageFramer;
import dev.tern.internal.wire.WritableBuffer;
import dev.tern.netty.internal.buffer.NettyWritableBufferAllocator;
import dev.tern.netty.internal.grpc.GrpcFields;
import dev.tern.netty.internal.grpc.GrpcWire;
import dev.tern.netty.internal.write.OutboundFramer;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.WireSizeListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.io.InputStream;
import java.util.Objects;

/**
 * The application half of one call over HTTP/3: it frames outbound messages on the calling thread
 * into pooled buffers and hands them, like every other action, to the connection's event loop,
 * where the call's {@link Http3ResponseStream} writes them as DATA frames. Tasks from one thread
 * run there in order.
 *
 * <p>Thread-safety: the runtime calls one method at a time, except that {@link #cancel} may race
 * with the others; the framer therefore sits in an {@link OutboundFramer} behind its own lock.
 * {@link #isReady()} reads an atomic count of bytes handed over and not yet written.
 */
final class Http3ClientStream implements ClientStream, MessageFramer.Sink {
  private static final byte[] HTTPS = GrpcWire.bytes(AsciiString.cached("https"));
  private static final NettyWritableBufferAllocator ALLOCATOR =
      new NettyWritableBufferAllocator(ByteBufAllocator.DEFAULT);

  private final Http3ClientConnection connection;
  private final Http3ResponseStream state;
  private final AsciiString path;
  private final AsciiString authority;
  private final OutboundFramer outbound;
  private Metadata headers;
  private boolean started;
  private int maxInboundMessageSize = GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE;
  private DecompressorRegistry decompressorRegistry = DecompressorRegistry.getDefaultInstance();
  private volatile boolean closed;
  private volatile Status cancelledBeforeStart;

  Http3ClientStream(
      Http3ClientConnection connection, AsciiString path, AsciiString authority, Metadata headers) {
    this.connection = connection;
    this.path = path;
    this.authority = authority;
    this.headers = headers;
    this.outbound = new OutboundFramer(this, ALLOCATOR, null);
    this.state = new Http3ResponseStream(connection, this);
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
    // Set here; the hand-over below publishes them to the event loop.
    state.setListener(listener);
    Status cancelled = cancelledBeforeStart;
    if (cancelled != null) {
      connection.eventLoop().execute(() -> state.notStarted(cancelled, RpcProgress.DROPPED));
      return;
    }
    state.configure(maxInboundMessageSize, decompressorRegistry);
    AsciiString agent = connection.userAgent();
    byte[][] fields =
        GrpcFields.request(
            HTTPS,
            GrpcWire.bytes(path),
            GrpcWire.bytes(authority),
            agent == null ? null : GrpcWire.bytes(agent),
            headers);
    headers = null;
    connection.eventLoop().execute(() -> state.start(fields));
  }

  @Override
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be positive: " + numMessages);
    }
    if (!closed) {
      connection.eventLoop().execute(() -> state.request(numMessages));
    }
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
    connection.eventLoop().execute(() -> state.cancel(reason));
  }

  @Override
  public Attributes getAttributes() {
    return connection.getAttributes();
  }

  // ---- MessageFramer.Sink (under the outbound framer's lock)

  @Override
  public void deliverFrame(
      WritableBuffer frame, boolean endOfStream, boolean flush, int numMessages) {
    ByteBuf buf = frame == null ? Unpooled.EMPTY_BUFFER : outbound.queue(frame);
    int bytes = buf.readableBytes();
    connection.eventLoop().execute(() -> state.sendData(buf, endOfStream, bytes));
  }

  // ---- on the event loop

  /** {@code bytes} handed over earlier were written (or dropped); may make the stream ready. */
  void onSentBytes(int bytes) {
    if (outbound.sent(bytes)) {
      state.onReady();
    }
  }

  /** The call ended: later writes are dropped and {@link #isReady()} is false. */
  void onClosed() {
    closed = true;
    outbound.dispose();
  }

  @Override
  public String toString() {
    return "Http3ClientStream{" + path + "}";
  }
}
