package dev.tern.internal.wire;

import dev.tern.Codec;
import dev.tern.Decompressor;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * Parses the inbound bytes of a stream, in whatever chunks they arrive, into gRPC length-prefixed
 * messages (see {@link GrpcFrame}), and delivers each message as an {@link InputStream} once the
 * application has asked for it with {@link #request}.
 *
 * <p>Flow control: bytes are consumed only on behalf of a requested message. They are reported
 * through {@link Listener#bytesRead} as the deframer takes them, so a transport can return HTTP/2
 * flow-control window while the application keeps up, and withholds it when it does not. Bytes of a
 * requested message are consumed as they arrive, even before the message is complete, so a message
 * larger than the window still gets through.
 *
 * <p>Size limits: a message whose prefix announces more than the limit fails with {@code
 * RESOURCE_EXHAUSTED} before its body is buffered. A compressed message is decompressed lazily as
 * the application reads the delivered stream, and that stream fails with {@code RESOURCE_EXHAUSTED}
 * as soon as it yields more than the limit, so a small compressed message cannot expand into
 * unbounded memory.
 *
 * <p>Errors are reported once, through {@link Listener#deframeFailed} with a {@link
 * StatusRuntimeException}, after which the deframer closes itself.
 *
 * <p>Not thread-safe: every method must be called from the one thread that owns the stream's
 * inbound side (the transport's). Listener methods run synchronously on that thread, from inside
 * {@link #request}, {@link #deframe} or {@link #closeWhenComplete}; they may call back into the
 * deframer, which then finishes its current step before acting on the nested call.
 */
public final class MessageDeframer {

  /** Receives what the deframer produces; all methods run on the deframer's thread. */
  public interface Listener {
    /**
     * Delivers one message. The listener owns {@code message} and must close it once read (this
     * releases the buffers and, for compressed messages, the native decompressor behind it).
     */
    void messageRead(InputStream message);

    /**
     * The deframer has closed, for whatever reason: end of stream reached, {@link #close()}, or a
     * failure. Called exactly once.
     *
     * @param hasPartialMessage whether undelivered bytes were discarded: part of a message, or data
     *     not yet parsed into messages
     */
    void deframerClosed(boolean hasPartialMessage);

    /** The inbound bytes broke the protocol or a limit; the deframer closes right after. */
    void deframeFailed(Throwable cause);

    /** {@code numBytes} more inbound bytes (prefixes included) have been consumed. */
    void bytesRead(int numBytes);
  }

  private enum State {
    /** Waiting for the 5-byte prefix of the next message. */
    HEADER,
    /** Prefix parsed; gathering {@link #bodyLength} bytes of body. */
    BODY
  }

  private final Listener listener;
  private Decompressor decompressor;
  private int maxMessageSize;

  /** Received bytes not yet consumed. */
  private final CompositeReadableBuffer unprocessed = new CompositeReadableBuffer();

  /** Body bytes gathered so far when a body spans several {@link #deframe} calls, else null. */
  private CompositeReadableBuffer partialBody;

  private State state = State.HEADER;
  private boolean compressedBody;
  private int bodyLength;

  /** Hears each message's body length when its prefix is parsed (stream tracers); may be null. */
  private LongConsumer frameSizeListener;

  private long pendingDeliveries;
  private int unreportedBytesRead;
  private boolean inDelivery;
  private boolean endOfStream;
  private boolean closed;

  /**
   * Creates a deframer.
   *
   * @param decompressor decompresses messages flagged as compressed; {@link Codec.Identity#NONE}
   *     when the stream has no {@code grpc-encoding}, in which case such messages are an error
   * @param maxMessageSize the largest message accepted, in bytes, both as announced by its prefix
   *     and after decompression
   * @throws IllegalArgumentException if {@code maxMessageSize} is negative
   */
  public MessageDeframer(Listener listener, Decompressor decompressor, int maxMessageSize) {
    this.listener = Objects.requireNonNull(listener, "listener");
    this.decompressor = Objects.requireNonNull(decompressor, "decompressor");
    this.maxMessageSize = checkMaxMessageSize(maxMessageSize);
  }

  /** Tells {@code listener} the body length of each message whose prefix is parsed from now on. */
  public void setFrameSizeListener(LongConsumer listener) {
    this.frameSizeListener = listener;
  }

  /**
   * Sets the decompressor for compressed messages whose prefix is parsed from now on, typically
   * once the headers' {@code grpc-encoding} is known.
   */
  public void setDecompressor(Decompressor decompressor) {
    this.decompressor = Objects.requireNonNull(decompressor, "decompressor");
  }

  /**
   * Sets the largest message accepted, for prefixes parsed from now on.
   *
   * @throws IllegalArgumentException if {@code maxMessageSize} is negative
   */
  public void setMaxInboundMessageSize(int maxMessageSize) {
    this.maxMessageSize = checkMaxMessageSize(maxMessageSize);
  }

  /**
   * Allows {@code numMessages} more messages to be delivered, delivering any already available
   * before returning. Does nothing once closed.
   *
   * @throws IllegalArgumentException if {@code numMessages} is not positive
   */
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be positive: " + numMessages);
    }
    if (closed) {
      return;
    }
    long sum = pendingDeliveries + numMessages;
    pendingDeliveries = sum < 0 ? Long.MAX_VALUE : sum;
    deliver();
  }

  /**
   * Adds received bytes, taking ownership of {@code data}, and delivers what was requested and is
   * now complete. After the deframer closed (for example, after a failure), {@code data} is
   * released and ignored.
   *
   * @throws IllegalStateException if called after {@link #closeWhenComplete()} ({@code data} is
   *     released first)
   */
  public void deframe(ReadableBuffer data) {
    Objects.requireNonNull(data, "data");
    if (closed) {
      data.close();
      return;
    }
    if (endOfStream) {
      data.close();
      throw new IllegalStateException("data received after end of stream");
    }
    unprocessed.addBuffer(data);
    deliver();
  }

  /**
   * Signals the end of the inbound stream. The deframer closes once every buffered message has been
   * requested and delivered. If the stream ends inside a message, delivery fails with {@code
   * INTERNAL} "Encountered end-of-stream mid-frame" when that message is reached.
   */
  public void closeWhenComplete() {
    if (closed) {
      return;
    }
    endOfStream = true;
    deliver();
  }

  /**
   * Closes the deframer now, releasing every buffered byte; undelivered messages are dropped.
   * Idempotent.
   */
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    boolean hasPartialMessage = state == State.BODY || unprocessed.readableBytes() > 0;
    unprocessed.close();
    if (partialBody != null) {
      partialBody.close();
      partialBody = null;
    }
    listener.deframerClosed(hasPartialMessage);
  }

  /** Returns whether the deframer has closed (end of stream reached, closed, or failed). */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Returns whether the deframer holds received bytes not yet delivered: complete messages waiting
   * for {@link #request}, or part of a message waiting for more bytes.
   */
  public boolean hasPendingDeliveries() {
    return !closed && (state == State.BODY || unprocessed.readableBytes() > 0);
  }

  private void deliver() {
    if (inDelivery) {
      return; // a listener called back in; the outer loop picks up whatever changed
    }
    inDelivery = true;
    try {
      while (!closed && pendingDeliveries > 0) {
        if (state == State.HEADER) {
          if (unprocessed.readableBytes() < GrpcFrame.HEADER_LENGTH || !readHeader()) {
            break;
          }
        }
        ReadableBuffer body = readBody();
        if (body == null) {
          break;
        }
        state = State.HEADER;
        pendingDeliveries--;
        InputStream message = openMessage(body);
        if (message == null) {
          break;
        }
        reportBytesRead();
        listener.messageRead(message);
      }
      if (closed) {
        return;
      }
      reportBytesRead();
      if (endOfStream) {
        if (state == State.HEADER && unprocessed.readableBytes() == 0) {
          close();
        } else if (pendingDeliveries > 0) {
          // A message was requested and the loop ran out of bytes inside it.
          fail(Status.INTERNAL.withDescription("Encountered end-of-stream mid-frame"));
        }
        // Otherwise buffered bytes wait for request(); their fate is decided then.
      }
    } finally {
      inDelivery = false;
    }
  }

  /** Parses a prefix; returns false, having failed the deframer, if it is not acceptable. */
  private boolean readHeader() {
    int flags = unprocessed.readUnsignedByte();
    long length = Integer.toUnsignedLong(unprocessed.readInt());
    unreportedBytesRead += GrpcFrame.HEADER_LENGTH;
    if ((flags & GrpcFrame.RESERVED_FLAGS_MASK) != 0) {
      fail(Status.INTERNAL.withDescription("gRPC frame header malformed: reserved bits not zero"));
      return false;
    }
    compressedBody = (flags & GrpcFrame.COMPRESSED_FLAG_MASK) != 0;
    if (compressedBody && isIdentity(decompressor)) {
      fail(
          Status.INTERNAL.withDescription(
              "Can't decode compressed gRPC message as compression not configured"));
      return false;
    }
    if (length > maxMessageSize) {
      fail(
          Status.RESOURCE_EXHAUSTED.withDescription(
              "gRPC message exceeds maximum size " + maxMessageSize + ": " + length));
      return false;
    }
    bodyLength = (int) length;
    state = State.BODY;
    LongConsumer sizes = frameSizeListener;
    if (sizes != null) {
      sizes.accept(length);
    }
    return true;
  }

  /**
   * Consumes as much of the current body as has arrived. Returns the whole body once complete
   * (sharing the received buffers, not copying them), or null while bytes are missing.
   */
  private ReadableBuffer readBody() {
    int available = unprocessed.readableBytes();
    if (partialBody == null) {
      if (available >= bodyLength) {
        unreportedBytesRead += bodyLength;
        return unprocessed.readBytes(bodyLength);
      }
      partialBody = new CompositeReadableBuffer();
    }
    int missing = bodyLength - partialBody.readableBytes();
    int n = Math.min(missing, available);
    if (n > 0) {
      partialBody.addBuffer(unprocessed.readBytes(n));
      unreportedBytesRead += n;
    }
    if (n < missing) {
      return null;
    }
    ReadableBuffer body = partialBody;
    partialBody = null;
    return body;
  }

  /** Wraps a body for the listener; returns null, having failed the deframer, if that fails. */
  private InputStream openMessage(ReadableBuffer body) {
    InputStream raw = ReadableBuffers.openStream(body, true);
    if (!compressedBody) {
      return raw;
    }
    try {
      return new SizeLimitedInputStream(decompressor.decompress(raw), maxMessageSize);
    } catch (IOException | RuntimeException e) {
      closeQuietly(raw);
      fail(
          Status.INTERNAL
              .withDescription(
                  "Can't decompress gRPC message with " + decompressor.getMessageEncoding())
              .withCause(e));
      return null;
    }
  }

  private void fail(Status status) {
    reportBytesRead();
    listener.deframeFailed(status.asRuntimeException());
    close();
  }

  private void reportBytesRead() {
    if (unreportedBytesRead > 0) {
      int n = unreportedBytesRead;
      unreportedBytesRead = 0;
      listener.bytesRead(n);
    }
  }

  private static boolean isIdentity(Decompressor decompressor) {
    return decompressor == Codec.Identity.NONE
        || "identity".equals(decompressor.getMessageEncoding());
  }

  private static int checkMaxMessageSize(int maxMessageSize) {
    if (maxMessageSize < 0) {
      throw new IllegalArgumentException("maxMessageSize < 0: " + maxMessageSize);
    }
    return maxMessageSize;
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // Only releasing memory; there is nothing useful to do with a failure here.
    }
  }

  /**
   * Fails with RESOURCE_EXHAUSTED once more than {@code limit} bytes have been read, and never asks
   * the decompressor for more than one byte past the limit.
   */
  private static final class SizeLimitedInputStream extends FilterInputStream {
    private final long limit;
    private long count;

    SizeLimitedInputStream(InputStream in, long limit) {
      super(in);
      this.limit = limit;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b != -1) {
        counted(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      Objects.checkFromIndexSize(off, len, b.length);
      int allowed = (int) Math.min(len, limit - count + 1);
      int n = in.read(b, off, allowed);
      if (n > 0) {
        counted(n);
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long skipped = in.skip(Math.min(n, limit - count + 1));
      counted(skipped);
      return skipped;
    }

    @Override
    public boolean markSupported() {
      return false;
    }

    @Override
    public synchronized void mark(int readLimit) {
      // Unsupported (markSupported() is false); reset() reports it.
    }

    @Override
    public synchronized void reset() throws IOException {
      throw new IOException("mark/reset not supported");
    }

    private void counted(long n) {
      count += n;
      if (count > limit) {
        throw Status.RESOURCE_EXHAUSTED
            .withDescription("Decompressed gRPC message exceeds maximum size " + limit)
            .asRuntimeException();
      }
    }
  }
}
