package dev.tern.web.internal;

import dev.tern.Attributes;
import dev.tern.Codec;
import dev.tern.Compressor;
import dev.tern.Decompressor;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.MessageDeframer;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.internal.buffer.NettyReadableBuffer;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerStreamListener;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every web protocol's {@link ServerStream} shares: one call over one {@link HttpExchange}.
 * The request body goes through a {@link MessageDeframer} (size limits, decompression, delivery on
 * request); responses are serialized, converted (JSON) and compressed on the application's thread,
 * then written on the event loop by the protocol's subclass, which only decides the bytes of
 * headers, messages and the ending.
 *
 * <p>Flow control: inbound bytes are returned to the exchange ({@link HttpExchange#consumed}) as
 * the deframer takes them for requested messages; outbound, {@link #isReady()} is false while more
 * than {@link #READY_THRESHOLD} bytes are written but not yet sent, and {@code onReady} follows
 * when they leave.
 *
 * <p>Thread-safety: the runtime calls the {@link ServerStream} methods from one thread at a time
 * (and {@link #cancel} from a timer); each hops onto the exchange's event loop, in order, unless
 * already there. Everything else (the body listener, the deframer listener, the subclass's hooks)
 * runs on the event loop only. The fields the application's thread reads are volatile or atomic.
 */
abstract class WebServerStream implements ServerStream, HttpBodyListener, MessageDeframer.Listener {
  /** Below this many written-but-unsent bytes the stream is ready (as tern-netty's streams). */
  static final int READY_THRESHOLD = 32 * 1024;

  final HttpExchange exchange;
  final Cors cors;
  private final MessageTransform transform;
  private final boolean unaryRequest;
  private final String fullMethodName;
  private final Attributes attributes;
  private final String authority;
  private final MessageDeframer deframer;
  private final AtomicLong unsentBytes = new AtomicLong();
  private volatile boolean outboundClosed;
  private volatile Compressor compressor = Codec.Identity.NONE;
  private volatile boolean messageCompression = true;

  // Event loop only.
  private ServerStreamListener listener;
  private boolean responseEnded;
  private boolean listenerClosed;
  private boolean inboundEnded;
  private int messagesDelivered;

  /**
   * @param unaryRequest whether the method takes exactly one request message (unary and
   *     server-streaming): any other count ends the call UNIMPLEMENTED, as gRPC's status code table
   *     says
   */
  WebServerStream(
      HttpExchange exchange,
      Cors cors,
      MessageTransform transform,
      String fullMethodName,
      boolean unaryRequest) {
    this.exchange = exchange;
    this.cors = cors;
    this.transform = transform;
    this.fullMethodName = fullMethodName;
    this.unaryRequest = unaryRequest;
    this.attributes = exchange.attributes();
    this.authority = exchange.request().authority();
    this.deframer =
        new MessageDeframer(this, Codec.Identity.NONE, GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE);
  }

  // ---- the protocol's part, on the event loop

  /** Request body bytes, which the subclass owns. Default: envelopes, into the deframer. */
  void inbound(ByteBuf data) {
    deframer.deframe(new NettyReadableBuffer(data));
  }

  /** The request body ended. Default: the deframer closes once what it holds is delivered. */
  void inboundEnded() {
    deframer.closeWhenComplete();
  }

  /** How many body bytes to return to the exchange for {@code deframed} bytes the deframer took. */
  int wireBytes(int deframed) {
    return deframed;
  }

  /** Writes the response headers the application sent (once, before any message). */
  abstract void sendHeaders(Metadata headers);

  /**
   * Writes one response message, already converted and (if {@code compressed}) compressed; calls
   * {@link #written} with {@code accounted} once its bytes left (or will never leave).
   */
  abstract void sendMessage(byte[] payload, boolean compressed, int accounted);

  /**
   * Writes the end of the response for {@code status} and {@code trailers}, and returns the future
   * of its last write. Called at most once, with the exchange open.
   */
  abstract ChannelFuture sendEnding(Status status, Metadata trailers);

  /** The call is over: release whatever of the request the subclass holds. */
  void dropInbound() {}

  final MessageDeframer deframer() {
    return deframer;
  }

  final String fullMethodName() {
    return fullMethodName;
  }

  /** Writes {@code data} and counts {@code accounted} bytes as sent once it left. */
  final ChannelFuture writeBody(ByteBuf data, boolean endOfStream, int accounted) {
    ChannelFuture future = exchange.writeBody(data, endOfStream);
    if (accounted > 0) {
      future.addListener(f -> written(accounted));
    }
    return future;
  }

  /** {@code bytes} of response messages left the stream's queue; may make it ready again. */
  final void written(int bytes) {
    long after = unsentBytes.addAndGet(-bytes);
    if (after < READY_THRESHOLD && after + bytes >= READY_THRESHOLD) {
      if (listener != null && !listenerClosed) {
        listener.onReady();
      }
    }
  }

  /**
   * Ends the call because of the protocol (bad input, a broken limit): writes the ending with
   * {@code status} if the response is still open, drops the rest of the request, and tells the
   * runtime. Event loop only.
   */
  final void fail(Status status) {
    outboundClosed = true;
    if (!responseEnded) {
      responseEnded = true;
      if (exchange.isOpen()) {
        sendEnding(status, new Metadata());
      }
    }
    deframer.close();
    dropInbound();
    closeListener(status);
  }

  private void closeListener(Status status) {
    if (listenerClosed) {
      return;
    }
    listenerClosed = true;
    outboundClosed = true;
    if (listener != null) {
      listener.closed(status);
    }
  }

  private void onLoop(Runnable action) {
    if (exchange.eventLoop().inEventLoop()) {
      action.run();
    } else {
      exchange.eventLoop().execute(action);
    }
  }

  // ---- HttpBodyListener (event loop)

  @Override
  public void onData(ByteBuf data, boolean endOfStream) {
    if (responseEnded || inboundEnded) {
      // The call is over (or the body already ended): drop the rest, keeping the connection read.
      int bytes = data.readableBytes();
      data.release();
      exchange.consumed(bytes);
      return;
    }
    inbound(data);
    if (endOfStream && !responseEnded) {
      endInbound();
    }
  }

  /** The request body is complete (from the body, or from elsewhere such as a GET's query). */
  final void endInbound() {
    if (!inboundEnded) {
      inboundEnded = true;
      inboundEnded();
    }
  }

  @Override
  public void onAbort(Status status) {
    outboundClosed = true;
    responseEnded = true;
    deframer.close();
    dropInbound();
    closeListener(status);
  }

  // ---- MessageDeframer.Listener (event loop)

  @Override
  public void messageRead(InputStream message) {
    if (responseEnded || listener == null) {
      closeQuietly(message);
      return;
    }
    messagesDelivered++;
    if (unaryRequest && messagesDelivered > 1) {
      closeQuietly(message);
      fail(
          Status.UNIMPLEMENTED.withDescription(
              "More than one request message for " + fullMethodName + ", which takes one"));
      return;
    }
    InputStream delivered = message;
    if (transform != MessageTransform.IDENTITY) {
      try (InputStream in = message) {
        delivered = new ByteArrayInputStream(transform.toBinary(in.readAllBytes()));
      } catch (StatusRuntimeException e) {
        fail(e.getStatus());
        return;
      } catch (IOException e) {
        fail(Status.INTERNAL.withDescription("Cannot read request message").withCause(e));
        return;
      }
    }
    listener.messageRead(delivered);
  }

  @Override
  public void deframerClosed(boolean hasPartialMessage) {
    if (responseEnded || !inboundEnded || listener == null) {
      return;
    }
    if (unaryRequest && messagesDelivered == 0) {
      fail(
          Status.UNIMPLEMENTED.withDescription(
              "No request message for " + fullMethodName + ", which takes one"));
      return;
    }
    listener.halfClosed();
  }

  @Override
  public void deframeFailed(Throwable cause) {
    fail(Status.fromThrowable(cause));
  }

  @Override
  public void bytesRead(int numBytes) {
    int wire = wireBytes(numBytes);
    if (wire > 0) {
      exchange.consumed(wire);
    }
  }

  // ---- ServerStream (any thread, one at a time)

  @Override
  public void setListener(ServerStreamListener listener) {
    Objects.requireNonNull(listener, "listener");
    onLoop(() -> this.listener = listener);
  }

  @Override
  public void setDecompressor(Decompressor decompressor) {
    Objects.requireNonNull(decompressor, "decompressor");
    onLoop(() -> deframer.setDecompressor(decompressor));
  }

  @Override
  public void setMaxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("maxInboundMessageSize must be >= 0: " + bytes);
    }
    onLoop(() -> deframer.setMaxInboundMessageSize(bytes));
  }

  @Override
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be positive: " + numMessages);
    }
    onLoop(
        () -> {
          if (!responseEnded) {
            deframer.request(numMessages);
          }
        });
  }

  /** Requests from the application's thread go to the event loop. */
  @Override
  public boolean requestsCrossThreads() {
    return true;
  }

  @Override
  public void writeHeaders(Metadata headers, boolean flush) {
    Objects.requireNonNull(headers, "headers");
    if (outboundClosed) {
      return;
    }
    onLoop(
        () -> {
          if (!responseEnded) {
            sendHeaders(headers);
            if (flush) {
              exchange.flush();
            }
          }
        });
  }

  @Override
  public void writeMessage(InputStream message) {
    Objects.requireNonNull(message, "message");
    if (outboundClosed) {
      closeQuietly(message);
      return;
    }
    byte[] payload;
    boolean compressed = false;
    try (InputStream in = message) {
      payload = transform.fromBinary(in.readAllBytes());
      Compressor c = compressor;
      if (messageCompression && !isIdentity(c)) {
        payload = compress(c, payload);
        compressed = true;
      }
    } catch (StatusRuntimeException e) {
      cancel(e.getStatus());
      return;
    } catch (IOException | RuntimeException e) {
      cancel(Status.INTERNAL.withDescription("Cannot serialize response message").withCause(e));
      return;
    }
    byte[] bytes = payload;
    boolean isCompressed = compressed;
    int accounted = bytes.length;
    unsentBytes.addAndGet(accounted);
    onLoop(
        () -> {
          if (responseEnded) {
            written(accounted);
            return;
          }
          sendMessage(bytes, isCompressed, accounted);
        });
  }

  @Override
  public void flush() {
    onLoop(
        () -> {
          if (exchange.isOpen()) {
            exchange.flush();
          }
        });
  }

  @Override
  public boolean isReady() {
    return !outboundClosed && unsentBytes.get() < READY_THRESHOLD;
  }

  @Override
  public void setMessageCompression(boolean enable) {
    messageCompression = enable;
  }

  @Override
  public void setCompressor(Compressor compressor) {
    this.compressor = Objects.requireNonNull(compressor, "compressor");
  }

  @Override
  public void close(Status status, Metadata trailers) {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(trailers, "trailers");
    outboundClosed = true;
    onLoop(
        () -> {
          if (responseEnded) {
            return;
          }
          responseEnded = true;
          deframer.close();
          dropInbound();
          if (!exchange.isOpen()) {
            closeListener(Status.UNAVAILABLE.withDescription("connection closed before the end"));
            return;
          }
          sendEnding(status, trailers)
              .addListener(
                  f ->
                      closeListener(
                          f.isSuccess()
                              ? Status.OK
                              : Status.UNAVAILABLE
                                  .withDescription("failed to send the end of the response")
                                  .withCause(f.cause())));
        });
  }

  @Override
  public void cancel(Status status) {
    Objects.requireNonNull(status, "status");
    outboundClosed = true;
    onLoop(() -> fail(status));
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public String getAuthority() {
    return authority;
  }

  // ---- helpers

  static boolean isIdentity(Compressor compressor) {
    return compressor == Codec.Identity.NONE || "identity".equals(compressor.getMessageEncoding());
  }

  static byte[] compress(Compressor compressor, byte[] payload) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, payload.length / 2));
    try (OutputStream os = compressor.compress(out)) {
      os.write(payload);
    }
    return out.toByteArray();
  }

  static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // Only releasing buffers.
    }
  }
}
