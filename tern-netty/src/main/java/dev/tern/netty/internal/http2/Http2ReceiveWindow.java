package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.FLOW_CONTROL_ERROR;

/**
 * What the peer may still send on a stream or on the connection (stream 0), and the credit to give
 * back: RFC 9113 section 6.9. DATA (padding included) beyond the window is a FLOW_CONTROL_ERROR, of
 * the connection for stream 0 and of the stream otherwise. Bytes the application has consumed are
 * given back in batches: a WINDOW_UPDATE once they reach half the target window, not one per
 * message. One connection's, on its event loop; not thread-safe.
 */
final class Http2ReceiveWindow {
  private final int streamId;
  private final int target;
  private long window;
  private int consumed; // bytes consumed and not yet given back
  private long unconsumed; // bytes received and not yet consumed

  /**
   * @param initial the window the peer starts with (65,535 for the connection, this side's
   *     SETTINGS_INITIAL_WINDOW_SIZE for a stream)
   * @param target the window this side wants the peer to have: for the connection, {@link
   *     #initialIncrement} raises it there
   */
  Http2ReceiveWindow(int streamId, int initial, int target) {
    this.streamId = streamId;
    this.window = initial;
    this.target = target;
  }

  /** The WINDOW_UPDATE increment that lifts the starting window to the target, or 0. */
  int initialIncrement() {
    int increment = (int) Math.max(0, target - window);
    window += increment;
    return increment;
  }

  /** Bytes the peer may still send. */
  long available() {
    return window;
  }

  /** The peer sent {@code bytes} of flow-controlled DATA. */
  void received(int bytes) throws Http2FrameException {
    if (bytes > window) {
      String reason =
          bytes
              + " bytes of DATA on "
              + (streamId == 0 ? "the connection" : "stream " + streamId)
              + " beyond its receive window of "
              + window;
      throw streamId == 0
          ? Http2FrameException.connection(FLOW_CONTROL_ERROR, reason)
          : Http2FrameException.stream(streamId, FLOW_CONTROL_ERROR, reason);
    }
    window -= bytes;
    unconsumed += bytes;
  }

  /**
   * Bytes received that the application has not consumed, now set to none: what a closing stream's
   * reader will never give back, for the connection's window.
   */
  int takeUnconsumed() {
    int bytes = (int) unconsumed;
    unconsumed = 0;
    return bytes;
  }

  /**
   * The application consumed {@code bytes} that were received.
   *
   * @return the WINDOW_UPDATE increment to send now, or 0 while less than half the target waits
   */
  int consumed(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must not be negative: " + bytes);
    }
    unconsumed = Math.max(0, unconsumed - bytes);
    consumed += bytes;
    if (consumed < target / 2) {
      return 0;
    }
    int increment = (int) Math.min(consumed, Http2Frames.MAX_WINDOW_SIZE - window);
    consumed = 0;
    if (increment <= 0) {
      return 0; // the caller consumed more than was received: nothing sane to give back
    }
    window += increment;
    return increment;
  }
}
