package dev.tern.http3.internal.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Reads the frames of one HTTP/3 stream (RFC 9114 section 7) from bytes as they arrive, in pieces
 * of any size: DATA payloads are passed on as they come, never gathered; HEADERS and the control
 * frames are gathered whole, up to a limit; unknown frame types (and the reserved greasing ones)
 * are skipped. Which frames a stream may carry depends on its {@link Kind}; a frame it may not
 * carry, or a type reserved from HTTP/2, is H3_FRAME_UNEXPECTED; a control stream that does not
 * start with SETTINGS is H3_MISSING_SETTINGS. These, and malformed SETTINGS, are connection errors.
 *
 * <p>Bytes in, calls out, no I/O. One per stream; not thread-safe (the stream's event loop).
 */
public final class Http3FrameReader {
  /** What a stream carries. */
  public enum Kind {
    /** A request stream as the server reads it: HEADERS, DATA, trailing HEADERS. */
    REQUEST,
    /** A request stream as the client reads it: the response. */
    RESPONSE,
    /** The peer's control stream (after its type byte): SETTINGS first, then GOAWAY and others. */
    CONTROL
  }

  /** The largest control frame (SETTINGS, GOAWAY, ...) gathered; larger is H3_EXCESSIVE_LOAD. */
  static final int MAX_CONTROL_FRAME = 16 * 1024;

  /** What a stream's frames are handed to. */
  public interface Listener {
    /** A whole HEADERS payload; {@code block} is only valid during the call. */
    default void onHeaders(ByteBuf block) throws Http3Exception {}

    /** A HEADERS payload longer than the reader's limit went by unread. */
    default void onHeadersTooLarge(long length) throws Http3Exception {}

    /** Part of a DATA payload, possibly empty; the listener owns {@code data} and releases it. */
    default void onData(ByteBuf data) throws Http3Exception {
      data.release();
    }

    /** The peer's SETTINGS: identifiers and values alternating, already checked. */
    default void onSettings(long[] settings) throws Http3Exception {}

    /** GOAWAY with {@code id} (RFC 9114 section 5.2). */
    default void onGoAway(long id) throws Http3Exception {}
  }

  private enum Mode {
    FRAME_HEADER,
    DATA,
    GATHER,
    SKIP
  }

  private final Kind kind;
  private final Listener listener;
  private final int maxHeadersLength;
  private final byte[] header = new byte[16];
  private int headerLength;
  private Mode mode = Mode.FRAME_HEADER;
  private long type;
  private long remaining;
  private ByteBuf gathered;
  private boolean settingsSeen;

  /**
   * @param maxHeadersLength the longest HEADERS payload gathered; a longer one is skipped and
   *     reported with {@link Listener#onHeadersTooLarge}
   */
  public Http3FrameReader(Kind kind, Listener listener, int maxHeadersLength) {
    this.kind = kind;
    this.listener = listener;
    this.maxHeadersLength = maxHeadersLength;
  }

  /** Reads what {@code in} holds (all of it; the caller still owns and releases {@code in}). */
  public void receive(ByteBuf in) throws Http3Exception {
    while (in.isReadable()) {
      switch (mode) {
        case FRAME_HEADER -> readFrameHeader(in);
        case DATA -> {
          int n = (int) Math.min(remaining, in.readableBytes());
          remaining -= n;
          if (remaining == 0) {
            mode = Mode.FRAME_HEADER;
          }
          listener.onData(in.readRetainedSlice(n));
        }
        case GATHER -> {
          int n = (int) Math.min(remaining, in.readableBytes());
          gathered.writeBytes(in, n);
          remaining -= n;
          if (remaining == 0) {
            frameGathered();
          }
        }
        case SKIP -> {
          int n = (int) Math.min(remaining, in.readableBytes());
          in.skipBytes(n);
          remaining -= n;
          if (remaining == 0) {
            mode = Mode.FRAME_HEADER;
          }
        }
      }
    }
  }

  /**
   * Whether the stream's bytes so far end inside a frame (an end of stream here is H3_FRAME_ERROR).
   */
  public boolean insideFrame() {
    return mode != Mode.FRAME_HEADER || headerLength > 0;
  }

  /** Drops what is gathered (the stream is gone). */
  public void release() {
    if (gathered != null) {
      gathered.release();
      gathered = null;
    }
  }

  private void readFrameHeader(ByteBuf in) throws Http3Exception {
    header[headerLength++] = in.readByte();
    int typeLength = VarInt.lengthOf(header[0]);
    if (headerLength <= typeLength) {
      return;
    }
    int lengthLength = VarInt.lengthOf(header[typeLength]);
    if (headerLength < typeLength + lengthLength) {
      return;
    }
    ByteBuf bytes = Unpooled.wrappedBuffer(header, 0, headerLength);
    type = VarInt.get(bytes, 0);
    remaining = VarInt.get(bytes, typeLength);
    headerLength = 0;
    startFrame();
  }

  private void startFrame() throws Http3Exception {
    checkAllowed();
    if (type == Http3Frames.DATA) {
      mode = Mode.DATA;
      if (remaining == 0) {
        mode = Mode.FRAME_HEADER;
        listener.onData(Unpooled.EMPTY_BUFFER);
      }
      return;
    }
    if (!Http3Frames.isKnown(type)) {
      mode = remaining == 0 ? Mode.FRAME_HEADER : Mode.SKIP;
      return;
    }
    long limit = type == Http3Frames.HEADERS ? maxHeadersLength : MAX_CONTROL_FRAME;
    if (remaining > limit) {
      if (type != Http3Frames.HEADERS) {
        throw Http3Exception.connection(
            Http3Errors.H3_EXCESSIVE_LOAD,
            Http3Frames.name(type) + " frame of " + remaining + " bytes, limit " + limit);
      }
      listener.onHeadersTooLarge(remaining);
      mode = Mode.SKIP;
      return;
    }
    gathered = Unpooled.buffer((int) remaining);
    mode = Mode.GATHER;
    if (remaining == 0) {
      frameGathered();
    }
  }

  private void checkAllowed() throws Http3Exception {
    if (Http3Frames.isReservedFromHttp2(type)) {
      throw unexpected("HTTP/2 frame type 0x" + Long.toHexString(type) + " is reserved in HTTP/3");
    }
    if (kind == Kind.CONTROL) {
      if (!settingsSeen && type != Http3Frames.SETTINGS) {
        throw Http3Exception.connection(
            Http3Errors.H3_MISSING_SETTINGS,
            "control stream starts with " + Http3Frames.name(type) + ", not SETTINGS");
      }
      if (type == Http3Frames.DATA
          || type == Http3Frames.HEADERS
          || type == Http3Frames.PUSH_PROMISE
          || (type == Http3Frames.SETTINGS && settingsSeen)) {
        throw unexpected(Http3Frames.name(type) + " on the control stream");
      }
      settingsSeen = true;
      return;
    }
    if (type == Http3Frames.SETTINGS
        || type == Http3Frames.GOAWAY
        || type == Http3Frames.MAX_PUSH_ID
        || type == Http3Frames.CANCEL_PUSH) {
      throw unexpected(Http3Frames.name(type) + " on a request stream");
    }
    if (type == Http3Frames.PUSH_PROMISE) {
      if (kind == Kind.REQUEST) {
        throw unexpected("PUSH_PROMISE from a client");
      }
      throw Http3Exception.connection(
          Http3Errors.H3_ID_ERROR, "PUSH_PROMISE, but no MAX_PUSH_ID was sent");
    }
  }

  private void frameGathered() throws Http3Exception {
    ByteBuf payload = gathered;
    gathered = null;
    mode = Mode.FRAME_HEADER;
    try {
      if (type == Http3Frames.HEADERS) {
        listener.onHeaders(payload);
      } else if (type == Http3Frames.SETTINGS) {
        listener.onSettings(Http3Frames.parseSettings(payload));
      } else if (type == Http3Frames.GOAWAY) {
        long id = VarInt.read(payload);
        if (payload.isReadable()) {
          throw Http3Exception.connection(Http3Errors.H3_FRAME_ERROR, "GOAWAY longer than its id");
        }
        listener.onGoAway(id);
      }
      // CANCEL_PUSH and MAX_PUSH_ID on the control stream: Tern never pushes; nothing to do.
    } finally {
      payload.release();
    }
  }

  private static Http3Exception unexpected(String reason) {
    return Http3Exception.connection(Http3Errors.H3_FRAME_UNEXPECTED, reason);
  }
}
