package dev.tern.netty.internal.client;

import dev.tern.Codec;
import dev.tern.Decompressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.MessageDeframer;
import dev.tern.netty.internal.buffer.NettyReadableBuffer;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongConsumer;

/**
 * The event-loop half of a client stream: it owns the deframer, turns inbound HEADERS, DATA,
 * trailers and RST_STREAM into listener events, and ends the call exactly once. The application
 * half is {@link NettyClientStream}.
 *
 * <p>Event loop only: every method runs on the connection's event loop (asserted), so no field
 * needs a lock; listener events are therefore delivered one at a time, as the SPI requires.
 */
final class ClientStreamState implements MessageDeframer.Listener {
  private final ClientHandler handler;
  private final NettyClientStream stream;
  private DecompressorRegistry decompressorRegistry = DecompressorRegistry.getDefaultInstance();
  private final MessageDeframer deframer;
  private ClientStreamListener listener;

  /** The HTTP/2 stream id, or -1 until the HEADERS frame is written. */
  private int id = -1;

  /** Its stream on the connection, set when the stream is prepared; event loop only after. */
  ConnectionStream wire;

  private boolean headersReceived;

  /** The status the call ends with once the deframer has delivered what was requested. */
  private Status pendingStatus;

  private Metadata pendingTrailers;
  private boolean closed;

  ClientStreamState(ClientHandler handler, NettyClientStream stream) {
    this.handler = handler;
    this.stream = stream;
    this.deframer =
        new MessageDeframer(this, Codec.Identity.NONE, GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE);
  }

  /** Applies what the runtime set before start. */
  void configure(int maxInboundMessageSize, DecompressorRegistry registry) {
    deframer.setMaxInboundMessageSize(maxInboundMessageSize);
    decompressorRegistry = registry;
  }

  /** See {@link MessageDeframer#setFrameSizeListener}; before the stream is created. */
  void setFrameSizeListener(LongConsumer listener) {
    deframer.setFrameSizeListener(listener);
  }

  void setListener(ClientStreamListener listener) {
    this.listener = listener;
  }

  NettyClientStream stream() {
    return stream;
  }

  int id() {
    return id;
  }

  void setId(int id) {
    this.id = id;
  }

  boolean isClosed() {
    return closed;
  }

  /** The application asked for {@code n} more messages. */
  void request(int n) {
    assert handler.inEventLoop();
    deframer.request(n);
  }

  /**
   * Response headers ({@code endStream == false}) or trailers / Trailers-Only. Of {@code headers}
   * only the metadata ({@link GrpcResponseHeaders#toMetadata}) is kept: the engine reuses the
   * holder for the connection's next block.
   */
  void onHeaders(GrpcResponseHeaders headers, boolean endStream) {
    assert handler.inEventLoop();
    if (closed || pendingStatus != null) {
      return;
    }
    String invalid = headers.invalidBinaryHeader();
    if (invalid != null) {
      fail(Status.INTERNAL.withDescription(invalid), true);
      return;
    }
    if (endStream) {
      // Trailers after response headers, or a Trailers-Only response: the latter is the response's
      // head as well, checked as the headers path checks it.
      Status status =
          headersReceived
              ? Http2Statuses.fromTrailers(headers)
              : Http2Statuses.fromTrailersOnly(headers);
      Metadata trailers = headers.toMetadata();
      endOfStream(status, trailers);
      return;
    }
    if (!headersReceived && Http2Statuses.isInformational(headers.status())) {
      return; // a 1xx response precedes the real one (RFC 9113 section 8.1): skip it
    }
    if (headersReceived) {
      fail(
          Status.INTERNAL.withDescription("Received a second HEADERS frame without END_STREAM"),
          true);
      return;
    }
    headersReceived = true;
    Status invalidResponse = Http2Statuses.checkResponseHead(headers);
    if (invalidResponse != null) {
      fail(invalidResponse, true);
      return;
    }
    Metadata metadata = headers.toMetadata();
    String encoding = metadata.get(GrpcHeaders.MESSAGE_ENCODING);
    if (encoding != null) {
      Decompressor decompressor = decompressorRegistry.lookupDecompressor(encoding);
      if (decompressor == null) {
        fail(
            Status.INTERNAL.withDescription(
                "Can't find decompressor for " + encoding + " named in the response"),
            true);
        return;
      }
      deframer.setDecompressor(decompressor);
    }
    listener.headersRead(metadata);
  }

  /** DATA arrived; takes ownership of {@code data}. */
  void onData(ByteBuf data, boolean endStream) {
    assert handler.inEventLoop();
    if (closed || pendingStatus != null) {
      data.release();
      return;
    }
    if (!headersReceived) {
      data.release();
      fail(Status.INTERNAL.withDescription("Received DATA before response headers"), true);
      return;
    }
    deframer.deframe(new NettyReadableBuffer(data));
    if (endStream && !closed) {
      endOfStream(
          Status.INTERNAL.withDescription("Received END_STREAM on a DATA frame, without trailers"),
          new Metadata());
    }
  }

  /** The server reset the stream. */
  void onReset(Status status) {
    closeNow(status, RpcProgress.PROCESSED, new Metadata());
  }

  /**
   * The HTTP/2 stream closed. If the call has not ended yet, it ends with {@code status} (the
   * connection went away, or a GOAWAY excluded the stream: then {@code refused}).
   */
  void onStreamClosed(Status status, boolean refused) {
    if (!closed && pendingStatus == null) {
      closeNow(status, refused ? RpcProgress.REFUSED : RpcProgress.PROCESSED, new Metadata());
    }
  }

  /** The stream never made it onto the connection. */
  void onNotStarted(Status status, RpcProgress progress) {
    closeNow(status, progress, new Metadata());
  }

  /** The application cancelled: discard everything and report {@code status}. */
  void cancel(Status status) {
    closeNow(status, RpcProgress.PROCESSED, new Metadata());
  }

  /** Fails the call on a local decision; with {@code reset} the server is told by RST_STREAM. */
  void fail(Status status, boolean reset) {
    boolean wasClosed = closed;
    closeNow(status, RpcProgress.PROCESSED, new Metadata());
    if (reset && !wasClosed) {
      handler.resetStream(this);
    }
  }

  private void endOfStream(Status status, Metadata trailers) {
    pendingStatus = status;
    pendingTrailers = trailers;
    handler.onEndOfStreamReceived(this);
    // Delivers the rest of what was requested first; deframerClosed reports the status then.
    deframer.closeWhenComplete();
  }

  private void closeNow(Status status, RpcProgress progress, Metadata trailers) {
    assert handler.inEventLoop();
    if (closed) {
      return;
    }
    closed = true;
    if (id > 0) {
      handler.socketNode().streamEnded(status.isOk());
    }
    pendingStatus = null;
    pendingTrailers = null;
    deframer.close();
    stream.onClosed();
    listener.closed(status, progress, trailers);
  }

  /** The application can write more (called by the app half when queued bytes drain). */
  void onReady() {
    if (!closed) {
      listener.onReady();
    }
  }

  // ---- MessageDeframer.Listener

  @Override
  public void messageRead(InputStream message) {
    if (closed) {
      closeQuietly(message);
      return;
    }
    handler.socketNode().messageReceived();
    listener.messageRead(message);
  }

  @Override
  public void deframerClosed(boolean hasPartialMessage) {
    if (closed || pendingStatus == null) {
      return;
    }
    Status status = pendingStatus;
    Metadata trailers = pendingTrailers;
    if (hasPartialMessage && status.isOk()) {
      status = Status.INTERNAL.withDescription("Encountered end-of-stream mid-frame");
    }
    closeNow(status, RpcProgress.PROCESSED, trailers);
  }

  @Override
  public void deframeFailed(Throwable cause) {
    fail(Status.fromThrowable(cause), true);
  }

  @Override
  public void bytesRead(int numBytes) {
    handler.consumed(id, numBytes);
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // Only releasing buffers.
    }
  }
}
