package dev.tern.internal.wire;

import dev.tern.Codec;
import dev.tern.Compressor;
import dev.tern.KnownLength;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * Turns outbound messages into gRPC length-prefixed messages ({@code [flags][length][message]}, see
 * {@link GrpcFrame}) written into {@link WritableBuffer}s, and hands full buffers to a {@link
 * Sink}.
 *
 * <p>Small messages are batched: each is appended to the current buffer, and a buffer goes to the
 * sink only when it is full, on {@link #flush()} or on {@link #close()}. A message whose length is
 * known up front ({@link KnownLength} streams and {@link ByteArrayInputStream}) is written straight
 * into the buffer behind its prefix. Other messages, and every compressed message, are first
 * written to a staging array owned by the framer (reused from message to message) to learn the
 * length the prefix must carry.
 *
 * <p>Not thread-safe: a framer belongs to the single thread that writes a stream's messages.
 */
public final class MessageFramer {

  /** Receives the framed bytes. */
  public interface Sink {
    /**
     * Takes {@code frame}, ownership included (the sink releases it once written).
     *
     * @param frame the bytes to send, or null when the call only ends the stream or flushes
     * @param endOfStream whether these are the last bytes of the stream
     * @param flush whether the transport should flush after writing, because a caller asked for it;
     *     frames delivered with {@code flush == false} may wait for a later flush
     * @param numMessages how many messages end in this frame
     */
    void deliverFrame(WritableBuffer frame, boolean endOfStream, boolean flush, int numMessages);
  }

  /** Smallest buffer requested, so that many small messages share one buffer and one write. */
  private static final int MIN_BUFFER_SIZE = 4096;

  /** Largest buffer requested at once; bigger messages span several buffers. */
  private static final int MAX_BUFFER_SIZE = 1024 * 1024;

  /**
   * Staging arrays larger than this are dropped after use rather than kept for the next message.
   */
  private static final int MAX_RETAINED_STAGING_SIZE = 64 * 1024;

  private final Sink sink;
  private final WritableBufferAllocator allocator;
  private final OutputStream bufferOutput = new BufferOutput();

  /** Made on the first message that needs it: most streams only frame messages of known length. */
  private StagingOutput staging;

  private Compressor compressor = Codec.Identity.NONE;

  /** Hears each framed message's body length (stream tracers); null for none. */
  private LongConsumer frameSizeListener;

  private boolean messageCompression = true;
  private int maxOutboundMessageSize = Integer.MAX_VALUE;

  /** The buffer being filled, or null until the next byte needs one. */
  private WritableBuffer buffer;

  /** Messages whose last byte is in {@link #buffer}. */
  private int messagesInBuffer;

  /** Bytes of the current frame (prefix included) not yet written; sizes the next allocation. */
  private long frameBytesRemaining;

  private boolean closed;

  /** Lazily allocated copy buffer for message streams that cannot write themselves out directly. */
  private byte[] copyBuffer;

  /**
   * Creates a framer that writes into buffers from {@code allocator} and delivers to {@code sink}.
   */
  public MessageFramer(Sink sink, WritableBufferAllocator allocator) {
    this.sink = Objects.requireNonNull(sink, "sink");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
  }

  /** Tells {@code listener} the body length of each message framed from now on; null for none. */
  public void setFrameSizeListener(LongConsumer listener) {
    this.frameSizeListener = listener;
  }

  /**
   * Sets the compressor for the messages that follow; {@link Codec.Identity#NONE} (the default)
   * means no compression. The transport must announce its encoding in {@code grpc-encoding}.
   */
  public void setCompressor(Compressor compressor) {
    this.compressor = Objects.requireNonNull(compressor, "compressor");
  }

  /**
   * Enables or disables compression of the messages that follow (default enabled). Disabled, or
   * with the identity compressor, messages go out uncompressed with flag 0, which is legal on a
   * stream whatever its {@code grpc-encoding}.
   */
  public void setMessageCompression(boolean enable) {
    this.messageCompression = enable;
  }

  /**
   * Sets the largest message, in bytes, that {@link #writePayload} accepts (default: no limit).
   * Both the serialized size and, for compressed messages, the compressed size must fit.
   *
   * @throws IllegalArgumentException if {@code maxSize} is negative
   */
  public void setMaxOutboundMessageSize(int maxSize) {
    if (maxSize < 0) {
      throw new IllegalArgumentException("maxOutboundMessageSize < 0: " + maxSize);
    }
    this.maxOutboundMessageSize = maxSize;
  }

  /**
   * Frames one message, reading {@code message} to its end and closing it.
   *
   * @throws StatusRuntimeException with {@code RESOURCE_EXHAUSTED} if the message is larger than
   *     the limit; nothing of it was written and the framer remains usable. With {@code INTERNAL}
   *     if reading or compressing the message failed, or a {@link KnownLength} stream held a
   *     different number of bytes than it announced; the stream's output is then unusable and the
   *     caller must {@link #dispose()} the framer and reset the stream.
   * @throws IllegalStateException if the framer is closed
   */
  public void writePayload(InputStream message) {
    Objects.requireNonNull(message, "message");
    if (closed) {
      throw new IllegalStateException("MessageFramer is closed");
    }
    try (InputStream in = message) {
      int knownLength = knownLength(in);
      if (compressionEnabled()) {
        writeCompressed(in, knownLength);
      } else if (knownLength >= 0) {
        writeKnownLength(in, knownLength);
      } else {
        writeUnknownLength(in);
      }
    } catch (IOException e) {
      throw Status.INTERNAL
          .withDescription("Failed to frame message")
          .withCause(e)
          .asRuntimeException();
    } finally {
      if (staging != null) {
        staging.trim();
      }
    }
  }

  /**
   * Hands everything framed so far to the sink and asks it to flush. Does nothing if nothing was
   * framed since the last flush, or if the framer is closed.
   */
  public void flush() {
    // Buffers that went out unflushed were pushed out by bytes that followed them, so whenever
    // such a buffer exists, so does a non-empty current buffer whose flush covers it.
    if (!closed && buffer != null && buffer.readableBytes() > 0) {
      deliverBuffer(false, true);
    }
  }

  /**
   * Delivers the remaining bytes with end-of-stream and flush set; the frame is null if no bytes
   * are left. Idempotent: later calls do nothing.
   */
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    deliverBuffer(true, true);
  }

  /**
   * Closes the framer without delivering anything: the pending buffer is released. Used when the
   * stream is cancelled. Idempotent.
   */
  public void dispose() {
    closed = true;
    WritableBuffer pending = buffer;
    buffer = null;
    messagesInBuffer = 0;
    if (pending != null) {
      pending.release();
    }
  }

  /** Returns whether {@link #close()} or {@link #dispose()} has been called. */
  public boolean isClosed() {
    return closed;
  }

  private boolean compressionEnabled() {
    return messageCompression
        && compressor != Codec.Identity.NONE
        && !"identity".equals(compressor.getMessageEncoding());
  }

  private static int knownLength(InputStream in) throws IOException {
    if (in instanceof KnownLength || in instanceof ByteArrayInputStream) {
      return in.available();
    }
    return -1;
  }

  private void writeKnownLength(InputStream in, int length) throws IOException {
    checkSize(length);
    writeHeader(GrpcFrame.UNCOMPRESSED_FLAG, length);
    long written = copy(in, bufferOutput);
    if (written != length) {
      throw Status.INTERNAL
          .withDescription("Message length inaccurate: " + written + " != " + length)
          .asRuntimeException();
    }
    messagesInBuffer++;
  }

  private void writeUnknownLength(InputStream in) throws IOException {
    StagingOutput staging = staging();
    copyWithinLimit(in, staging);
    writeStaged(GrpcFrame.UNCOMPRESSED_FLAG);
  }

  private void writeCompressed(InputStream in, int knownLength) throws IOException {
    if (knownLength >= 0) {
      checkSize(knownLength); // reject before spending any time compressing
    }
    StagingOutput staging = staging();
    // Closing finishes the compressed data and frees the native deflater right away.
    try (OutputStream compressing = compressor.compress(staging)) {
      copyWithinLimit(in, compressing);
    }
    checkSize(staging.count);
    writeStaged(GrpcFrame.COMPRESSED_FLAG_MASK);
  }

  private void writeStaged(int flags) {
    writeHeader(flags, staging.count);
    writeToBuffers(staging.bytes, 0, staging.count);
    messagesInBuffer++;
  }

  private void checkSize(long size) {
    if (size > maxOutboundMessageSize) {
      throw Status.RESOURCE_EXHAUSTED
          .withDescription("message too large: " + size + " > " + maxOutboundMessageSize)
          .asRuntimeException();
    }
  }

  private void writeHeader(int flags, int length) {
    frameBytesRemaining = GrpcFrame.HEADER_LENGTH + (long) length;
    LongConsumer sizes = frameSizeListener;
    if (sizes != null) {
      sizes.accept(length);
    }
    writeByteToBuffers(flags);
    writeByteToBuffers(length >>> 24);
    writeByteToBuffers(length >>> 16);
    writeByteToBuffers(length >>> 8);
    writeByteToBuffers(length);
  }

  /**
   * Copies all of {@code in} to {@code out}, writing directly when the stream can: marshallers'
   * {@link KnownLength} streams (e.g. protobuf's, which serializes straight into {@code out}), byte
   * arrays and buffers implement {@code transferTo} without an intermediate copy.
   */
  private long copy(InputStream in, OutputStream out) throws IOException {
    if (in instanceof KnownLength
        || in instanceof ByteArrayInputStream
        || ReadableBuffers.isBufferStream(in)) {
      return in.transferTo(out);
    }
    byte[] chunk = copyBuffer();
    long total = 0;
    int n;
    while ((n = in.read(chunk)) != -1) {
      out.write(chunk, 0, n);
      total += n;
    }
    return total;
  }

  /**
   * Copies all of {@code in} to {@code out}, failing with RESOURCE_EXHAUSTED as soon as more than
   * the limit has been read: the rest is only counted, never stored, so the error can name the real
   * size without buffering an oversized message.
   */
  private void copyWithinLimit(InputStream in, OutputStream out) throws IOException {
    byte[] chunk = copyBuffer();
    long total = 0;
    int n;
    while ((n = in.read(chunk)) != -1) {
      total += n;
      if (total > maxOutboundMessageSize) {
        while ((n = in.read(chunk)) != -1) {
          total += n;
        }
        checkSize(total);
      }
      out.write(chunk, 0, n);
    }
  }

  /** The staging array, emptied. */
  private StagingOutput staging() {
    if (staging == null) {
      staging = new StagingOutput();
    }
    staging.reset();
    return staging;
  }

  private byte[] copyBuffer() {
    if (copyBuffer == null) {
      copyBuffer = new byte[8192];
    }
    return copyBuffer;
  }

  /** Appends bytes to the current buffer, passing full buffers to the sink. */
  private void writeToBuffers(byte[] src, int offset, int length) {
    while (length > 0) {
      if (buffer == null) {
        buffer = allocator.allocate(nextBufferSize());
      } else if (buffer.writableBytes() == 0) {
        deliverBuffer(false, false);
        buffer = allocator.allocate(nextBufferSize());
      }
      int n = Math.min(length, buffer.writableBytes());
      buffer.write(src, offset, n);
      offset += n;
      length -= n;
      frameBytesRemaining -= n;
    }
  }

  /** {@link #writeToBuffers} for one byte (the low 8 bits of {@code b}), without an array. */
  private void writeByteToBuffers(int b) {
    if (buffer == null) {
      buffer = allocator.allocate(nextBufferSize());
    } else if (buffer.writableBytes() == 0) {
      deliverBuffer(false, false);
      buffer = allocator.allocate(nextBufferSize());
    }
    buffer.write((byte) b);
    frameBytesRemaining--;
  }

  private int nextBufferSize() {
    return (int) Math.max(MIN_BUFFER_SIZE, Math.min(frameBytesRemaining, MAX_BUFFER_SIZE));
  }

  private void deliverBuffer(boolean endOfStream, boolean flush) {
    WritableBuffer frame = buffer;
    int messages = messagesInBuffer;
    buffer = null;
    messagesInBuffer = 0;
    if (frame != null && frame.readableBytes() == 0) {
      frame.release();
      frame = null;
    }
    sink.deliverFrame(frame, endOfStream, flush, messages);
  }

  /** Writes into the framer's current buffer; the path of known-length messages. */
  private final class BufferOutput extends OutputStream {
    @Override
    public void write(int b) {
      writeByteToBuffers(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      writeToBuffers(b, off, len);
    }
  }

  /** A growable byte array, reused from message to message. */
  private static final class StagingOutput extends OutputStream {
    private static final byte[] EMPTY = new byte[0];

    byte[] bytes = EMPTY;
    int count;

    void reset() {
      count = 0;
    }

    /** Drops an unusually large array so one big message does not pin its memory forever. */
    void trim() {
      count = 0;
      if (bytes.length > MAX_RETAINED_STAGING_SIZE) {
        bytes = EMPTY;
      }
    }

    @Override
    public void write(int b) {
      ensureCapacity(1);
      bytes[count++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      ensureCapacity(len);
      System.arraycopy(b, off, bytes, count, len);
      count += len;
    }

    private void ensureCapacity(int extra) {
      int needed = count + extra;
      if (needed < 0) {
        throw new IllegalStateException("message larger than 2 GiB");
      }
      if (needed > bytes.length) {
        long grown = Math.max((long) bytes.length * 2, Math.max(needed, 1024));
        bytes = Arrays.copyOf(bytes, (int) Math.min(grown, Integer.MAX_VALUE - 8));
      }
    }
  }
}
