package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;

/**
 * What an {@link Http2Connection} tells its transport, made for gRPC: header fields go straight
 * into a {@link HeaderSink} (no header object), DATA comes with the flow-control credit to give
 * back through {@link Http2Connection#consumed}, and nothing carries a promise. Each stream event
 * hands the {@link Http2Stream} itself, whose slot ({@link Http2Stream#attachment}) holds what the
 * transport attached to it: the last event of a stream is {@link #onStreamClosed}. Called on the
 * connection's event loop, from within {@link Http2Connection#receive} (or a send method that
 * resets a stream); the listener may call the connection's send methods from these callbacks.
 */
public interface Http2ConnectionListener {
  /**
   * A header block starts on a stream: the peer's request or response headers ({@code trailers}
   * false; for a server, a new stream) or its trailers. Its fields are decoded into the returned
   * sink, then {@link #onHeadersEnd} follows (or {@link #onHeaderListTooLarge}).
   */
  HeaderSink onHeadersStart(Http2Stream stream, boolean trailers);

  /** The block's fields have all been given to the sink. */
  void onHeadersEnd(Http2Stream stream, boolean trailers, boolean endStream);

  /**
   * The block was over SETTINGS_MAX_HEADER_LIST_SIZE: the sink heard part of it at most. The stream
   * stays as it is, so a server can answer (HTTP 431, RESOURCE_EXHAUSTED) and reset it.
   */
  void onHeaderListTooLarge(Http2Stream stream, boolean trailers, boolean endStream);

  /**
   * DATA on a stream.
   *
   * @param data the payload, which the listener must release
   * @param flowControlled bytes to pass to {@link Http2Connection#consumed} once the application
   *     has taken them (the payload and any padding)
   */
  void onData(Http2Stream stream, ByteBuf data, int flowControlled, boolean endStream);

  /**
   * A stream ended abnormally: the peer reset it ({@code byPeer}), or this side did because of a
   * stream error, a queue limit or the connection ending. Not called for resets the transport asked
   * for, nor for streams refused before the listener heard of them. The stream has left the active
   * streams already; {@link #onStreamClosed} follows.
   */
  void onStreamReset(Http2Stream stream, long errorCode, boolean byPeer);

  /**
   * Whether the peer's reset of open stream {@code stream}, on which this side sent no DATA, is
   * ordinary traffic all the same (the call's deadline is nearly over, or the transport bounds what
   * such resets can cost otherwise), so it does not count toward the Rapid Reset limit. Asked
   * before {@link #onStreamReset}.
   */
  default boolean resetIsOrdinary(Http2Stream stream) {
    return false;
  }

  /**
   * A stream the listener heard of left the active streams, however it ended: both sides'
   * END_STREAM (this side's maybe only once flow control let its last DATA go), a reset from either
   * side (after {@link #onStreamReset}), or the connection failing (after it too). The stream's
   * last event: its attachment is cleared once this returns.
   */
  default void onStreamClosed(Http2Stream stream) {}

  /**
   * The peer sent GOAWAY: streams this side opened above {@code lastStreamId} were not processed
   * and have been reset (REFUSED_STREAM, safe to retry). {@code debugData} is valid during the
   * call.
   */
  void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData);

  /** The peer's SETTINGS, applied and acknowledged. */
  default void onSettings(Http2Settings settings) {}

  /** The peer acknowledged this side's SETTINGS. */
  default void onSettingsAck() {}

  /**
   * The peer sent a PING (not an acknowledgement), which is answered after this returns.
   *
   * @throws Http2FrameException to end the connection instead (a connection error), for example
   *     when the peer pings more often than the transport allows
   */
  default void onPing(long data) throws Http2FrameException {}

  /** The answer to a PING this side sent through {@link Http2Connection#ping}. */
  default void onPingAck(long data) {}

  /**
   * The connection is over: this side sent GOAWAY for a connection error ({@code errorCode} and
   * {@code reason}), or a graceful shutdown finished. The transport flushes and closes the channel.
   */
  void onConnectionClosed(long errorCode, String reason);
}
