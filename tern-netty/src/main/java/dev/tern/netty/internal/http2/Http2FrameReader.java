package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.ENHANCE_YOUR_CALM;
import static dev.tern.netty.internal.http2.Http2FrameException.FLOW_CONTROL_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.FRAME_SIZE_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.PROTOCOL_ERROR;
import static dev.tern.netty.internal.http2.Http2Frames.CONTINUATION;
import static dev.tern.netty.internal.http2.Http2Frames.DATA;
import static dev.tern.netty.internal.http2.Http2Frames.FLAG_ACK;
import static dev.tern.netty.internal.http2.Http2Frames.FLAG_END_HEADERS;
import static dev.tern.netty.internal.http2.Http2Frames.FLAG_END_STREAM;
import static dev.tern.netty.internal.http2.Http2Frames.FLAG_PADDED;
import static dev.tern.netty.internal.http2.Http2Frames.FLAG_PRIORITY;
import static dev.tern.netty.internal.http2.Http2Frames.GOAWAY;
import static dev.tern.netty.internal.http2.Http2Frames.HEADERS;
import static dev.tern.netty.internal.http2.Http2Frames.HEADER_LENGTH;
import static dev.tern.netty.internal.http2.Http2Frames.PING;
import static dev.tern.netty.internal.http2.Http2Frames.PRIORITY;
import static dev.tern.netty.internal.http2.Http2Frames.PUSH_PROMISE;
import static dev.tern.netty.internal.http2.Http2Frames.RST_STREAM;
import static dev.tern.netty.internal.http2.Http2Frames.SETTINGS;
import static dev.tern.netty.internal.http2.Http2Frames.WINDOW_UPDATE;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

/**
 * Reads HTTP/2 frames (RFC 9113 sections 4 and 6) from the bytes of a connection, fed in chunks
 * split anywhere, and hands each to an {@link Http2FrameListener}.
 *
 * <p>What it checks, frame by frame: the length against SETTINGS_MAX_FRAME_SIZE (before any byte of
 * the payload is kept), the stream id each type requires (0 or not), each type's fixed or minimum
 * length, padding within the payload, SETTINGS values, a WINDOW_UPDATE increment of 0, and the
 * CONTINUATION sequence: once a HEADERS frame leaves its block open, only CONTINUATION frames of
 * the same stream may follow, and the block may grow to at most {@code maxHeaderBlockBytes} over at
 * most {@code maxContinuationFrames} (default {@value #MAX_CONTINUATION_FRAMES}) CONTINUATION
 * frames, both checked at each frame's header, so a CONTINUATION flood is refused before its
 * payload is read. Unknown frame types are skipped without being kept. PUSH_PROMISE is a connection
 * error: gRPC never pushes, and Tern announces SETTINGS_ENABLE_PUSH 0 (a server may never receive
 * one anyway). A HEADERS frame's priority fields are reported through {@code onPriority} before its
 * headers; a dependency on the stream itself there is the connection layer's to refuse, after it
 * has decoded the block (the HPACK state must move on regardless).
 *
 * <p>Errors: a {@link Http2FrameException}. After a stream error the frame has been consumed and
 * reading may go on (call {@link #read} again with the rest of the chunk); after a connection error
 * the reader discards everything it is given.
 *
 * <p>Buffers: {@link #read} consumes the chunk's readable bytes but never releases it; a frame that
 * arrives whole in one chunk is passed on as a slice of it, without a copy; a split frame is
 * gathered: a DATA frame of 4 KiB or more as slices of the chunks, without a copy, any other into a
 * buffer of its exact length. {@link #close} releases what a partial frame or header block holds.
 * One reader per connection, on its event loop; not thread-safe.
 */
public final class Http2FrameReader {
  /**
   * A split DATA frame this long is gathered as slices of its chunks; a shorter one (a small
   * message's) costs less to copy than the composite buffer and slices would.
   */
  static final int MIN_SLICED_DATA_BYTES = 4096;

  /**
   * The most chunks one DATA frame split across chunks is kept as slices of; a frame in more pieces
   * is copied into one buffer instead, so a peer sending a frame a few bytes at a time holds no
   * more than this many of the read buffers.
   */
  static final int MAX_DATA_SLICES = 16;

  /** The most CONTINUATION frames one header block may have, by default. */
  static final int MAX_CONTINUATION_FRAMES = 32;

  private final int maxHeaderBlockBytes;
  private final int maxContinuationFrames;
  private int maxFrameSize = Http2Frames.DEFAULT_MAX_FRAME_SIZE;

  // The frame being read.
  private byte[] partialHeader; // made for the first header split across chunks
  private int partialHeaderBytes;
  private boolean inPayload;
  private int length;
  private int type;
  private int flags;
  private int streamId;
  private ByteBuf payload; // gathered when the frame is split across chunks (see gather)
  private int skipping; // bytes of an unknown frame still to skip

  // The header block being gathered from HEADERS and CONTINUATION frames.
  private int headersStreamId; // 0 when none is open
  private boolean headersEndStream;
  private ByteBuf headerBlock;
  private int continuationFrames;

  private boolean failed;

  /**
   * @param maxHeaderBlockBytes the largest header block (all its fragments together) accepted
   */
  public Http2FrameReader(int maxHeaderBlockBytes) {
    this(maxHeaderBlockBytes, MAX_CONTINUATION_FRAMES);
  }

  /**
   * @param maxHeaderBlockBytes the largest header block (all its fragments together) accepted
   * @param maxContinuationFrames the most CONTINUATION frames one block may have
   */
  public Http2FrameReader(int maxHeaderBlockBytes, int maxContinuationFrames) {
    this.maxHeaderBlockBytes = maxHeaderBlockBytes;
    this.maxContinuationFrames = maxContinuationFrames;
  }

  /** This side's SETTINGS_MAX_FRAME_SIZE, once the peer acknowledged it. */
  public void setMaxFrameSize(int maxFrameSize) {
    if (maxFrameSize < Http2Frames.DEFAULT_MAX_FRAME_SIZE
        || maxFrameSize > Http2Frames.MAX_FRAME_SIZE_UPPER_BOUND) {
      throw new IllegalArgumentException("SETTINGS_MAX_FRAME_SIZE out of range: " + maxFrameSize);
    }
    this.maxFrameSize = maxFrameSize;
  }

  /**
   * The connection failed: like {@link #close}, and the reader discards everything after, including
   * the rest of a chunk it is reading now.
   */
  public void stop() {
    failed = true;
    close();
  }

  /** Releases the buffers of a partly read frame or header block. */
  public void close() {
    if (payload != null) {
      payload.release();
      payload = null;
    }
    if (headerBlock != null) {
      headerBlock.release();
      headerBlock = null;
    }
  }

  /**
   * Reads every readable byte of {@code in}, calling the listener for each complete frame.
   *
   * @throws Http2FrameException a stream error (call again for the rest of {@code in}) or a
   *     connection error (the reader is done)
   */
  public void read(ByteBuf in, Http2FrameListener listener) throws Http2FrameException {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    try {
      readFrames(in, listener);
    } catch (Http2FrameException e) {
      if (e.connectionError()) {
        failed = true;
        close();
      }
      throw e;
    }
  }

  private void readFrames(ByteBuf in, Http2FrameListener listener) throws Http2FrameException {
    while (true) {
      if (failed) {
        in.skipBytes(in.readableBytes()); // stopped by what the last frame made the listener do
        return;
      }
      if (!inPayload) {
        if (partialHeaderBytes == 0 && in.readableBytes() >= HEADER_LENGTH) {
          int index = in.readerIndex();
          length = in.getUnsignedMedium(index);
          type = in.getUnsignedByte(index + 3);
          flags = in.getUnsignedByte(index + 4);
          streamId = in.getInt(index + 5) & 0x7FFF_FFFF; // the reserved bit is ignored
          in.skipBytes(HEADER_LENGTH);
        } else {
          if (!in.isReadable()) {
            return; // every chunk ends here, most without a partial header
          }
          if (partialHeader == null) {
            partialHeader = new byte[HEADER_LENGTH];
          }
          int n = Math.min(HEADER_LENGTH - partialHeaderBytes, in.readableBytes());
          in.readBytes(partialHeader, partialHeaderBytes, n);
          partialHeaderBytes += n;
          if (partialHeaderBytes < HEADER_LENGTH) {
            return;
          }
          partialHeaderBytes = 0;
          byte[] h = partialHeader;
          length = (h[0] & 0xFF) << 16 | (h[1] & 0xFF) << 8 | (h[2] & 0xFF);
          type = h[3] & 0xFF;
          flags = h[4] & 0xFF;
          streamId =
              ((h[5] & 0x7F) << 24) | (h[6] & 0xFF) << 16 | (h[7] & 0xFF) << 8 | (h[8] & 0xFF);
        }
        inPayload = true;
        checkHeader();
        if (type > CONTINUATION) {
          skipping = length;
        }
      }
      if (type > CONTINUATION) {
        int n = Math.min(skipping, in.readableBytes());
        in.skipBytes(n);
        skipping -= n;
        if (skipping > 0) {
          return;
        }
        inPayload = false;
        continue;
      }
      if (payload == null) {
        if (in.readableBytes() >= length) {
          inPayload = false;
          dispatchInPlace(in, listener);
          continue;
        }
        if (!in.isReadable()) {
          return;
        }
      }
      int gathered = payload == null ? 0 : payload.readableBytes();
      gather(in, Math.min(length - gathered, in.readableBytes()));
      if (payload.readableBytes() < length) {
        return;
      }
      ByteBuf whole = payload;
      payload = null;
      inPayload = false;
      try {
        dispatch(whole, listener);
      } finally {
        whole.release();
      }
    }
  }

  /**
   * Adds the next {@code n} bytes of {@code in} to the payload of a frame split across chunks. A
   * DATA payload of {@link #MIN_SLICED_DATA_BYTES} or more (a large message's bytes) is gathered as
   * slices of the chunks, sharing their memory, up to {@link #MAX_DATA_SLICES} of them; past that
   * (a peer trickling a frame), and for smaller DATA and every other frame type, the bytes are
   * copied into one buffer of the frame's length.
   */
  private void gather(ByteBuf in, int n) {
    if (payload == null) {
      payload =
          type == DATA && length >= MIN_SLICED_DATA_BYTES
              ? in.alloc().compositeBuffer(MAX_DATA_SLICES)
              : in.alloc().buffer(length, length);
    } else if (payload instanceof CompositeByteBuf slices
        && slices.numComponents() == MAX_DATA_SLICES) {
      payload = in.alloc().buffer(length, length).writeBytes(slices);
      slices.release();
    }
    if (payload instanceof CompositeByteBuf slices) {
      slices.addComponent(true, in.readRetainedSlice(n));
    } else {
      payload.writeBytes(in, n);
    }
  }

  /** The checks a frame's header alone allows: made before any of its payload is kept. */
  private void checkHeader() throws Http2FrameException {
    if (length > maxFrameSize) {
      throw connectionError(
          FRAME_SIZE_ERROR,
          "%s frame of %d bytes over SETTINGS_MAX_FRAME_SIZE %d",
          name(type),
          length,
          maxFrameSize);
    }
    if (headersStreamId != 0 && (type != CONTINUATION || streamId != headersStreamId)) {
      throw connectionError(
          PROTOCOL_ERROR,
          "%s frame on stream %d inside the header block of stream %d (only CONTINUATION may"
              + " follow until END_HEADERS)",
          name(type),
          streamId,
          headersStreamId);
    }
    switch (type) {
      case DATA -> {
        requireStream();
        requireLength((flags & FLAG_PADDED) != 0 ? 1 : 0);
      }
      case HEADERS -> {
        requireStream();
        requireLength(
            ((flags & FLAG_PADDED) != 0 ? 1 : 0) + ((flags & FLAG_PRIORITY) != 0 ? 5 : 0));
      }
      case PRIORITY -> requireStream(); // a wrong length is a stream error, once it is read
      case RST_STREAM -> {
        requireStream();
        requireExactLength(4);
      }
      case SETTINGS -> {
        requireConnection();
        if ((flags & FLAG_ACK) != 0 && length != 0) {
          throw connectionError(
              FRAME_SIZE_ERROR, "SETTINGS acknowledgement with a %d-byte payload", length);
        }
        if (length % 6 != 0) {
          throw connectionError(
              FRAME_SIZE_ERROR, "SETTINGS payload of %d bytes, not a multiple of 6", length);
        }
      }
      case PUSH_PROMISE ->
          throw connectionError(
              PROTOCOL_ERROR, "PUSH_PROMISE on stream %d: push is disabled", streamId);
      case PING -> {
        requireConnection();
        requireExactLength(8);
      }
      case GOAWAY -> {
        requireConnection();
        requireLength(8);
      }
      case WINDOW_UPDATE -> requireExactLength(4);
      case CONTINUATION -> {
        requireStream();
        if (headersStreamId == 0) {
          throw connectionError(
              PROTOCOL_ERROR,
              "CONTINUATION frame on stream %d without an open header block",
              streamId);
        }
        if (++continuationFrames > maxContinuationFrames) {
          throw connectionError(
              ENHANCE_YOUR_CALM,
              "header block of stream %d in more than %d CONTINUATION frames",
              streamId,
              maxContinuationFrames);
        }
        checkHeaderBlockSize((long) headerBlock.readableBytes() + length);
      }
      default -> {} // unknown: skipped
    }
  }

  /**
   * Dispatches the frame whose payload is the next {@code length} bytes of {@code in}, without a
   * slice per frame: the listener sees {@code in} ending with the payload (no listener keeps the
   * buffer it is given), and afterwards {@code in} goes on after the payload, whatever was read.
   */
  private void dispatchInPlace(ByteBuf in, Http2FrameListener listener) throws Http2FrameException {
    int payloadEnd = in.readerIndex() + length;
    int writerIndex = in.writerIndex();
    in.writerIndex(payloadEnd);
    try {
      dispatch(in, listener);
    } finally {
      in.writerIndex(writerIndex);
      in.readerIndex(payloadEnd);
    }
  }

  private void dispatch(ByteBuf p, Http2FrameListener listener) throws Http2FrameException {
    switch (type) {
      case DATA -> {
        int padding = readPadding(p, 0);
        listener.onData(
            streamId,
            p.retainedSlice(p.readerIndex(), p.readableBytes() - padding + (padding > 0 ? 1 : 0)),
            padding,
            (flags & FLAG_END_STREAM) != 0);
      }
      case HEADERS -> readHeaders(p, listener);
      case PRIORITY -> {
        if (length != 5) {
          throw Http2FrameException.stream(
              streamId, FRAME_SIZE_ERROR, "PRIORITY frame of " + length + " bytes, not 5");
        }
        int dependency = p.readInt();
        int weight = p.readUnsignedByte() + 1;
        if ((dependency & 0x7FFF_FFFF) == streamId) {
          throw Http2FrameException.stream(
              streamId, PROTOCOL_ERROR, "stream " + streamId + " depends on itself");
        }
        listener.onPriority(streamId, dependency & 0x7FFF_FFFF, dependency < 0, weight);
      }
      case RST_STREAM -> listener.onRstStream(streamId, p.readUnsignedInt());
      case SETTINGS -> {
        if ((flags & FLAG_ACK) != 0) {
          listener.onSettingsAck();
        } else {
          listener.onSettings(readSettings(p));
        }
      }
      case PING -> listener.onPing(p.readLong(), (flags & FLAG_ACK) != 0);
      case GOAWAY -> {
        int lastStreamId = p.readInt() & 0x7FFF_FFFF;
        long errorCode = p.readUnsignedInt();
        listener.onGoAway(lastStreamId, errorCode, p);
      }
      case WINDOW_UPDATE -> {
        int increment = p.readInt() & 0x7FFF_FFFF;
        if (increment == 0) {
          String reason = "WINDOW_UPDATE with an increment of 0 on stream " + streamId;
          throw streamId == 0
              ? Http2FrameException.connection(PROTOCOL_ERROR, reason)
              : Http2FrameException.stream(streamId, PROTOCOL_ERROR, reason);
        }
        listener.onWindowUpdate(streamId, increment);
      }
      case CONTINUATION -> {
        headerBlock.writeBytes(p);
        if ((flags & FLAG_END_HEADERS) != 0) {
          endHeaderBlock(listener);
        }
      }
      default -> throw new AssertionError(type);
    }
  }

  /**
   * Reads a padded frame's pad length and checks it against the payload after the pad length field
   * and {@code fieldsLength} more bytes.
   *
   * @return the padding, pad length field included (0 when not padded)
   */
  private int readPadding(ByteBuf p, int fieldsLength) throws Http2FrameException {
    if ((flags & FLAG_PADDED) == 0) {
      return 0;
    }
    int padLength = p.readUnsignedByte();
    if (padLength > p.readableBytes() - fieldsLength) {
      throw connectionError(
          PROTOCOL_ERROR,
          "%s frame's pad length %d beyond its %d-byte payload",
          name(type),
          padLength,
          length);
    }
    return padLength + 1;
  }

  private void readHeaders(ByteBuf p, Http2FrameListener listener) throws Http2FrameException {
    boolean priority = (flags & FLAG_PRIORITY) != 0;
    int padding = readPadding(p, priority ? 5 : 0);
    if (priority) {
      int dependency = p.readInt();
      int weight = p.readUnsignedByte() + 1;
      listener.onPriority(streamId, dependency & 0x7FFF_FFFF, dependency < 0, weight);
    }
    int fragmentLength = p.readableBytes() - (padding > 0 ? padding - 1 : 0);
    checkHeaderBlockSize(fragmentLength);
    boolean endStream = (flags & FLAG_END_STREAM) != 0;
    // The padding is cut off in place, as the whole frame was (see dispatchInPlace).
    p.writerIndex(p.readerIndex() + fragmentLength);
    if ((flags & FLAG_END_HEADERS) != 0) {
      listener.onHeaders(streamId, p, endStream);
      return;
    }
    headerBlock = p.alloc().buffer(Math.min(2 * fragmentLength + 64, maxHeaderBlockBytes));
    headerBlock.writeBytes(p);
    headersStreamId = streamId;
    headersEndStream = endStream;
    continuationFrames = 0;
  }

  private void endHeaderBlock(Http2FrameListener listener) throws Http2FrameException {
    ByteBuf block = headerBlock;
    int blockStreamId = headersStreamId;
    headerBlock = null;
    headersStreamId = 0;
    try {
      listener.onHeaders(blockStreamId, block, headersEndStream);
    } finally {
      block.release();
    }
  }

  private void checkHeaderBlockSize(long size) throws Http2FrameException {
    if (size > maxHeaderBlockBytes) {
      throw connectionError(
          ENHANCE_YOUR_CALM,
          "header block of stream %d over %d bytes",
          streamId,
          maxHeaderBlockBytes);
    }
  }

  private static Http2Settings readSettings(ByteBuf p) throws Http2FrameException {
    Http2Settings settings = new Http2Settings();
    while (p.isReadable()) {
      int id = p.readUnsignedShort();
      long value = p.readUnsignedInt();
      switch (id) {
        case Http2Settings.ENABLE_PUSH -> {
          if (value > 1) {
            throw connectionError(PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH %d, not 0 or 1", value);
          }
        }
        case Http2Settings.INITIAL_WINDOW_SIZE -> {
          if (value > Http2Frames.MAX_WINDOW_SIZE) {
            throw connectionError(
                FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE %d over 2^31-1", value);
          }
        }
        case Http2Settings.MAX_FRAME_SIZE -> {
          if (value < Http2Frames.DEFAULT_MAX_FRAME_SIZE
              || value > Http2Frames.MAX_FRAME_SIZE_UPPER_BOUND) {
            throw connectionError(
                PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE %d outside 16384 to 2^24-1", value);
          }
        }
        default -> {}
      }
      settings.set(id, value);
    }
    return settings;
  }

  private void requireStream() throws Http2FrameException {
    if (streamId == 0) {
      throw connectionError(PROTOCOL_ERROR, "%s frame on stream 0", name(type));
    }
  }

  private void requireConnection() throws Http2FrameException {
    if (streamId != 0) {
      throw connectionError(PROTOCOL_ERROR, "%s frame on stream %d, not 0", name(type), streamId);
    }
  }

  private void requireLength(int minimum) throws Http2FrameException {
    if (length < minimum) {
      throw connectionError(
          FRAME_SIZE_ERROR, "%s frame of %d bytes, under %d", name(type), length, minimum);
    }
  }

  private void requireExactLength(int expected) throws Http2FrameException {
    if (length != expected) {
      throw connectionError(
          FRAME_SIZE_ERROR, "%s frame of %d bytes, not %d", name(type), length, expected);
    }
  }

  private static Http2FrameException connectionError(long code, String format, Object... args) {
    return Http2FrameException.connection(code, String.format(format, args));
  }

  static String name(int type) {
    return switch (type) {
      case DATA -> "DATA";
      case HEADERS -> "HEADERS";
      case PRIORITY -> "PRIORITY";
      case RST_STREAM -> "RST_STREAM";
      case SETTINGS -> "SETTINGS";
      case PUSH_PROMISE -> "PUSH_PROMISE";
      case PING -> "PING";
      case GOAWAY -> "GOAWAY";
      case WINDOW_UPDATE -> "WINDOW_UPDATE";
      case CONTINUATION -> "CONTINUATION";
      default -> "unknown (0x" + Integer.toHexString(type) + ")";
    };
  }
}
