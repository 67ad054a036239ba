package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2Frames.CONTINUATION;
import static dev.tern.netty.internal.http2.Http2Frames.DATA;
import static dev.tern.netty.internal.http2.Http2Frames.FLAG_ACK;
import static dev.tern.netty.internal.http2.Http2Frames.FLAG_END_HEADERS;
import static dev.tern.netty.internal.http2.Http2Frames.FLAG_END_STREAM;
import static dev.tern.netty.internal.http2.Http2Frames.GOAWAY;
import static dev.tern.netty.internal.http2.Http2Frames.HEADERS;
import static dev.tern.netty.internal.http2.Http2Frames.HEADER_LENGTH;
import static dev.tern.netty.internal.http2.Http2Frames.PING;
import static dev.tern.netty.internal.http2.Http2Frames.PRIORITY;
import static dev.tern.netty.internal.http2.Http2Frames.RST_STREAM;
import static dev.tern.netty.internal.http2.Http2Frames.SETTINGS;
import static dev.tern.netty.internal.http2.Http2Frames.WINDOW_UPDATE;

import io.netty.buffer.ByteBuf;

/**
 * Writes HTTP/2 frames (RFC 9113 section 6) into a buffer the caller supplies, typically one per
 * flush: no promise, no buffer per frame. HEADERS blocks are split into CONTINUATION frames and
 * DATA into several frames at the peer's SETTINGS_MAX_FRAME_SIZE. The payload buffers given are
 * read (their reader index moves to the end) but never released. It writes padding, never, and
 * PUSH_PROMISE, never. One writer per connection, on its event loop; not thread-safe.
 *
 * <p>A DATA payload of at least {@link #SPLICE_MIN_BYTES} goes to the {@link Http2DataSplicer}, if
 * one is set, instead of being copied into the buffer: only its frame header is written there.
 */
public final class Http2FrameWriter {
  /**
   * DATA payloads this large are spliced rather than copied, as the copy is a second pass over
   * every byte of a large message (docs/performance-log.md, issue 52 target 4). The value is a
   * judgement, not a measurement: below it a copy is cheap next to the promise, slice and NIO view
   * a piece of its own costs, and a small call's DATA stays a copy in one buffer, as before.
   */
  static final int SPLICE_MIN_BYTES = 8 * 1024;

  private int maxFrameSize = Http2Frames.DEFAULT_MAX_FRAME_SIZE;
  private Http2DataSplicer splicer;

  /** Where large DATA payloads go instead of being copied; null (the default) copies them all. */
  public void setDataSplicer(Http2DataSplicer splicer) {
    this.splicer = splicer;
  }

  /** The peer's SETTINGS_MAX_FRAME_SIZE, once received. */
  public void setMaxFrameSize(int maxFrameSize) {
    if (maxFrameSize < Http2Frames.DEFAULT_MAX_FRAME_SIZE
        || maxFrameSize > Http2Frames.MAX_FRAME_SIZE_UPPER_BOUND) {
      throw new IllegalArgumentException("SETTINGS_MAX_FRAME_SIZE out of range: " + maxFrameSize);
    }
    this.maxFrameSize = maxFrameSize;
  }

  /** DATA frames for all of {@code data}, END_STREAM on the last (one empty frame if no data). */
  public void writeData(ByteBuf out, int streamId, ByteBuf data, boolean endStream) {
    do {
      int n = Math.min(data.readableBytes(), maxFrameSize);
      writeDataFrame(out, streamId, data, n, endStream && n == data.readableBytes());
    } while (data.isReadable());
  }

  /**
   * One DATA frame of the next {@code length} bytes of {@code data} (at most the peer's frame
   * size): copied into {@code out}, or spliced after the frame's header (see {@link
   * #SPLICE_MIN_BYTES}).
   */
  public void writeDataFrame(
      ByteBuf out, int streamId, ByteBuf data, int length, boolean endStream) {
    int flags = endStream ? FLAG_END_STREAM : 0;
    if (length >= SPLICE_MIN_BYTES && splicer != null) {
      out.ensureWritable(HEADER_LENGTH); // room for the header only: the payload goes elsewhere
      putFrameHeader(out, length, DATA, flags, streamId);
      if (!splicer.splice(out, data, length)) {
        out.writeBytes(data, length);
      }
      return;
    }
    writeFrameHeader(out, length, DATA, flags, streamId);
    out.writeBytes(data, length);
  }

  /** A HEADERS frame, and CONTINUATION frames for what does not fit in it. */
  public void writeHeaders(ByteBuf out, int streamId, ByteBuf headerBlock, boolean endStream) {
    int type = HEADERS;
    int flags = endStream ? FLAG_END_STREAM : 0;
    do {
      int n = Math.min(headerBlock.readableBytes(), maxFrameSize);
      boolean last = n == headerBlock.readableBytes();
      writeFrameHeader(out, n, type, last ? flags | FLAG_END_HEADERS : flags, streamId);
      out.writeBytes(headerBlock, n);
      type = CONTINUATION;
      flags = 0;
    } while (headerBlock.isReadable());
  }

  public void writePriority(
      ByteBuf out, int streamId, int dependency, boolean exclusive, int weight) {
    writeFrameHeader(out, 5, PRIORITY, 0, streamId);
    out.writeInt(exclusive ? dependency | 0x8000_0000 : dependency);
    out.writeByte(weight - 1);
  }

  public void writeRstStream(ByteBuf out, int streamId, long errorCode) {
    writeFrameHeader(out, 4, RST_STREAM, 0, streamId);
    out.writeInt((int) errorCode);
  }

  /** A SETTINGS frame with each parameter {@code settings} has, in identifier order. */
  public void writeSettings(ByteBuf out, Http2Settings settings) {
    writeFrameHeader(out, 6 * settings.count(), SETTINGS, 0, 0);
    for (int id = Http2Settings.HEADER_TABLE_SIZE; id <= Http2Settings.MAX_HEADER_LIST_SIZE; id++) {
      long value = settings.get(id);
      if (value >= 0) {
        out.writeShort(id);
        out.writeInt((int) value);
      }
    }
  }

  public void writeSettingsAck(ByteBuf out) {
    writeFrameHeader(out, 0, SETTINGS, FLAG_ACK, 0);
  }

  public void writePing(ByteBuf out, long data, boolean ack) {
    writeFrameHeader(out, 8, PING, ack ? FLAG_ACK : 0, 0);
    out.writeLong(data);
  }

  /** A GOAWAY frame carrying all of {@code debugData} (which may be empty). */
  public void writeGoAway(ByteBuf out, int lastStreamId, long errorCode, ByteBuf debugData) {
    writeFrameHeader(out, 8 + debugData.readableBytes(), GOAWAY, 0, 0);
    out.writeInt(lastStreamId);
    out.writeInt((int) errorCode);
    out.writeBytes(debugData);
  }

  public void writeWindowUpdate(ByteBuf out, int streamId, int increment) {
    if (increment <= 0) {
      throw new IllegalArgumentException("WINDOW_UPDATE increment must be positive: " + increment);
    }
    writeFrameHeader(out, 4, WINDOW_UPDATE, 0, streamId);
    out.writeInt(increment);
  }

  /** A frame header: 24-bit length, type, flags, stream id with the reserved bit clear. */
  static void writeFrameHeader(ByteBuf out, int length, int type, int flags, int streamId) {
    out.ensureWritable(HEADER_LENGTH + length);
    putFrameHeader(out, length, type, flags, streamId);
  }

  /** The frame header alone, into room the caller made. */
  private static void putFrameHeader(ByteBuf out, int length, int type, int flags, int streamId) {
    out.writeMedium(length);
    out.writeByte(type);
    out.writeByte(flags);
    out.writeInt(streamId & 0x7FFF_FFFF);
  }
}
