package dev.tern.netty.internal.server;

import dev.tern.Codec;
import dev.tern.Decompressor;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.MessageDeframer;
import dev.tern.netty.internal.buffer.NettyReadableBuffer;
import dev.tern.netty.internal.grpc.GrpcFields;
import dev.tern.spi.ServerStreamListener;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongConsumer;

/**
 * The event-loop half of a server stream: owns the deframer, delivers requested messages and the
 * half-close to the runtime's listener, writes headers and trailers, and ends the call exactly once
 * ({@code closed(OK)} once the trailers are written; otherwise why it broke). The application half
 * is {@link NettyServerStream}.
 *
 * <p>Event loop only: every method runs on the connection's event loop (asserted).
 */
final class ServerStreamState implements MessageDeframer.Listener {
  private final ServerHandler handler;
  private final int id;
  private final MessageDeframer deframer;
  private NettyServerStream stream;

  /**
   * What the connection keeps of the call (set when it starts): its writes handed to the engine.
   */
  ConnectionCall call;

  private ServerStreamListener listener;
  private boolean headersSent;
  private boolean messageSent;
  private boolean trailersSent;

  /** Whether the trailers written carry OK. */
  private boolean okSent;

  private boolean endOfStreamReceived;
  private boolean closed;

  ServerStreamState(ServerHandler handler, int id, int maxInboundMessageSize) {
    this.handler = handler;
    this.id = id;
    this.deframer = new MessageDeframer(this, Codec.Identity.NONE, maxInboundMessageSize);
  }

  void setStream(NettyServerStream stream) {
    this.stream = stream;
  }

  NettyServerStream stream() {
    return stream;
  }

  int id() {
    return id;
  }

  /**
   * Whether a response message went out on this stream: a client that resets it afterwards
   * cancelled a call it had an answer on, not one it opened only to reset.
   */
  boolean hasSentMessage() {
    return messageSent;
  }

  /**
   * Whether a client's reset of this stream now is ordinary traffic rather than part of a rapid
   * reset: a response message or the trailers went out ({@link #hasSentMessage}; a call the server
   * refused or shed at once, which the client reset before it read the answer, cancels no work), or
   * the runtime says so ({@link ServerStreamListener#resetIsOrdinary}: the call's deadline is at
   * least half over, or the call waits for the server's executor and is dropped at the reset).
   */
  boolean resetIsOrdinary() {
    return messageSent || trailersSent || (listener != null && listener.resetIsOrdinary());
  }

  boolean isClosed() {
    return closed;
  }

  void setListener(ServerStreamListener listener) {
    this.listener = listener;
  }

  boolean hasListener() {
    return listener != null;
  }

  void setMaxInboundMessageSize(int bytes) {
    deframer.setMaxInboundMessageSize(bytes);
  }

  void setFrameSizeListener(LongConsumer listener) {
    deframer.setFrameSizeListener(listener);
  }

  void setDecompressor(Decompressor decompressor) {
    deframer.setDecompressor(decompressor);
  }

  void request(int n) {
    assert handler.inEventLoop();
    deframer.request(n);
  }

  /** Request DATA; takes ownership of {@code data}. */
  void onData(ByteBuf data, boolean endStream) {
    assert handler.inEventLoop();
    if (closed || endOfStreamReceived) {
      data.release();
      return;
    }
    deframer.deframe(new NettyReadableBuffer(data));
    if (endStream) {
      onEndOfStream();
    }
  }

  /** The client half-closed; delivered once the requested messages before it are. */
  void onEndOfStream() {
    if (closed || endOfStreamReceived) {
      return;
    }
    endOfStreamReceived = true;
    deframer.closeWhenComplete();
  }

  /** The client reset the stream or the connection went away. */
  void onReset(Status status) {
    closeNow(status);
  }

  /** Writes the response headers. */
  void writeHeaders(byte[][] headers) {
    assert handler.inEventLoop();
    if (closed || headersSent || trailersSent) {
      return;
    }
    headersSent = true;
    handler.writeHeaders(this, headers, false);
  }

  /** Writes framed response bytes; takes ownership of {@code data}. */
  void writeData(ByteBuf data, int bytes, int messages) {
    if (closed || trailersSent) {
      data.release();
      stream.onSentBytes(bytes);
      return;
    }
    if (!headersSent) {
      // Messages need headers before them; the runtime normally sends them first.
      headersSent = true;
      handler.writeHeaders(this, GrpcFields.response(new Metadata()), false);
    }
    messageSent = true;
    handler.socketNode().messagesSent(messages);
    handler.writeData(this, data, bytes);
  }

  /** Ends the call: trailers (or Trailers-Only) with END_STREAM, then {@code closed(OK)}. */
  void writeTrailers(Status status, Metadata trailers) {
    assert handler.inEventLoop();
    if (closed || trailersSent) {
      return;
    }
    trailersSent = true;
    okSent = status.isOk();
    handler.writeTrailers(this, GrpcFields.trailers(status, trailers, !headersSent), false);
  }

  /** The trailers went out (or could not): report how the call ended. */
  void onTrailersWritten(boolean success, Throwable cause) {
    if (success) {
      closeNow(Status.OK);
    } else {
      closeNow(Status.UNAVAILABLE.withDescription("failed to send trailers").withCause(cause));
    }
  }

  /**
   * Aborts the call with {@code status}: the client is told with trailers when none were sent yet
   * (so it sees the status, not just a reset), then the stream is reset if the client is still
   * sending: with NO_ERROR once the trailers are out (see {@link
   * ServerHandler#resetStreamAfterTrailers}), as an error code would make some clients (gRPC
   * C-core) report the reset, such as CANCELLED, instead of the status in the trailers.
   */
  void abort(Status status) {
    assert handler.inEventLoop();
    if (closed) {
      return;
    }
    if (!trailersSent) {
      trailersSent = true;
      handler.writeTrailers(this, GrpcFields.trailers(status, new Metadata(), !headersSent), true);
    }
    handler.resetStreamAfterTrailers(this);
    closeNow(status);
  }

  /**
   * The client does not read this stream's responses: resets the stream (which drops what waits for
   * its window) and ends the call with {@code status}. No trailers: they would wait behind the
   * unread DATA.
   */
  void resetForUnreadResponses(Status status) {
    assert handler.inEventLoop();
    if (closed) {
      return;
    }
    trailersSent = true;
    handler.resetForUnreadResponses(this);
    closeNow(status);
  }

  private void closeNow(Status status) {
    if (closed) {
      return;
    }
    closed = true;
    // For channelz, as grpc-java counts: a stream succeeded if it ended with an OK status sent.
    handler.socketNode().streamEnded(status.isOk() && okSent);
    deframer.close();
    if (stream != null) {
      stream.onClosed();
    }
    if (listener != null) {
      listener.closed(status);
    }
    handler.streamClosed(this);
  }

  void onReady() {
    if (!closed && listener != null) {
      listener.onReady();
    }
  }

  // ---- MessageDeframer.Listener

  @Override
  public void messageRead(InputStream message) {
    if (closed || listener == null) {
      closeQuietly(message);
      return;
    }
    handler.socketNode().messageReceived();
    listener.messageRead(message);
  }

  @Override
  public void deframerClosed(boolean hasPartialMessage) {
    if (!closed && endOfStreamReceived && listener != null) {
      listener.halfClosed();
    }
  }

  @Override
  public void deframeFailed(Throwable cause) {
    abort(Status.fromThrowable(cause));
  }

  @Override
  public void bytesRead(int numBytes) {
    handler.returnBytes(id, numBytes);
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // Only releasing buffers.
    }
  }
}
