package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.FLOW_CONTROL_ERROR;

/**
 * What this side may still send on a stream or on the connection (stream 0): RFC 9113 section 6.9.
 * It grows with the peer's WINDOW_UPDATEs, shrinks with the DATA sent, and moves by the difference
 * when the peer changes SETTINGS_INITIAL_WINDOW_SIZE, which may leave a stream's window negative
 * (section 6.9.2). Growing past 2^31-1 is a FLOW_CONTROL_ERROR: of the connection for stream 0 or a
 * settings change, of the stream for a stream's WINDOW_UPDATE. One connection's, on its event loop;
 * not thread-safe.
 */
final class Http2SendWindow {
  private final int streamId;
  private long window;

  Http2SendWindow(int streamId, long initial) {
    this.streamId = streamId;
    this.window = initial;
  }

  /** Bytes that may be sent now; negative after the peer shrank the initial window. */
  long available() {
    return window;
  }

  /** {@code bytes} of DATA were sent (at most {@link #available()}). */
  void sent(int bytes) {
    if (bytes > window) {
      throw new IllegalStateException(bytes + " bytes sent with a window of " + window);
    }
    window -= bytes;
  }

  /** A WINDOW_UPDATE from the peer. */
  void increment(int increment) throws Http2FrameException {
    if (window + increment > Http2Frames.MAX_WINDOW_SIZE) {
      String reason =
          "WINDOW_UPDATE of "
              + increment
              + " takes the send window of "
              + (streamId == 0 ? "the connection" : "stream " + streamId)
              + " from "
              + window
              + " past 2^31-1";
      throw streamId == 0
          ? Http2FrameException.connection(FLOW_CONTROL_ERROR, reason)
          : Http2FrameException.stream(streamId, FLOW_CONTROL_ERROR, reason);
    }
    window += increment;
  }

  /** The peer's SETTINGS_INITIAL_WINDOW_SIZE moved by {@code delta} (section 6.9.2). */
  void adjustInitial(long delta) throws Http2FrameException {
    if (window + delta > Http2Frames.MAX_WINDOW_SIZE) {
      throw Http2FrameException.connection(
          FLOW_CONTROL_ERROR,
          "SETTINGS_INITIAL_WINDOW_SIZE change of "
              + delta
              + " takes the send window of stream "
              + streamId
              + " from "
              + window
              + " past 2^31-1");
    }
    window += delta;
  }
}
