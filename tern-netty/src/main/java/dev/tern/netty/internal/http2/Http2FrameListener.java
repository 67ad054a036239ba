package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;

/**
 * Receives the frames {@link Http2FrameReader} parsed, validated as far as one frame alone can be
 * (the stream states, flow control windows and settings' effects are the connection's). Unknown
 * frame types are skipped without a call. Called on the connection's event loop.
 */
public interface Http2FrameListener {
  /**
   * A DATA frame.
   *
   * @param data the payload without padding: a retained slice the listener must release
   * @param padding bytes of padding, pad length field included, that flow control counts too
   */
  void onData(int streamId, ByteBuf data, int padding, boolean endStream)
      throws Http2FrameException;

  /**
   * A complete header block: a HEADERS frame and its CONTINUATION frames, without padding or
   * priority fields.
   *
   * @param headerBlock valid only during the call (not retained; decode it, or copy it)
   */
  void onHeaders(int streamId, ByteBuf headerBlock, boolean endStream) throws Http2FrameException;

  /** A PRIORITY frame (or a HEADERS frame's priority fields, reported before its headers). */
  default void onPriority(int streamId, int dependency, boolean exclusive, int weight)
      throws Http2FrameException {}

  void onRstStream(int streamId, long errorCode) throws Http2FrameException;

  /** A SETTINGS frame (not an acknowledgement) with its parameters' values checked. */
  void onSettings(Http2Settings settings) throws Http2FrameException;

  void onSettingsAck() throws Http2FrameException;

  void onPing(long data, boolean ack) throws Http2FrameException;

  /** A GOAWAY frame; {@code debugData} is valid only during the call. */
  void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) throws Http2FrameException;

  /** A WINDOW_UPDATE frame, its increment at least 1. */
  void onWindowUpdate(int streamId, int increment) throws Http2FrameException;
}
