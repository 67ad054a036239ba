package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.ENHANCE_YOUR_CALM;

import java.util.function.LongSupplier;

/**
 * Counts what a peer can make a connection do without asking for any real work (docs/security.md):
 *
 * <ul>
 *   <li><b>Control frames without work</b>: PINGs and SETTINGS (each needs an acknowledgement) and
 *       empty DATA frames without END_STREAM, since the last HEADERS or non-empty DATA. Over the
 *       limit is ENHANCE_YOUR_CALM: a SETTINGS, PING or empty-frame flood.
 *   <li><b>Resets per window</b>: RST_STREAMs the peer sends and those it makes this side send
 *       (stream errors, refused streams), counted together in a fixed window of time. Over the
 *       limit is ENHANCE_YOUR_CALM: Rapid Reset (CVE-2023-44487) and MadeYouReset (CVE-2025-8671).
 * </ul>
 *
 * One connection's, on its event loop; not thread-safe.
 */
final class Http2FloodGuard {
  private final int maxControlFramesWithoutWork;
  private final int maxResetsPerWindow;
  private final long resetWindowNanos;
  private final LongSupplier nanoClock;

  private int controlFrames;
  private int resets;
  private long resetWindowStart;

  Http2FloodGuard(
      int maxControlFramesWithoutWork,
      int maxResetsPerWindow,
      long resetWindowNanos,
      LongSupplier nanoClock) {
    this.maxControlFramesWithoutWork = maxControlFramesWithoutWork;
    this.maxResetsPerWindow = maxResetsPerWindow;
    this.resetWindowNanos = resetWindowNanos;
    this.nanoClock = nanoClock;
    this.resetWindowStart = nanoClock.getAsLong();
  }

  /** A frame that asks for an answer, or nothing, but no work. */
  void controlFrame(String what) throws Http2FrameException {
    if (++controlFrames > maxControlFramesWithoutWork) {
      throw Http2FrameException.connection(
          ENHANCE_YOUR_CALM,
          "more than "
              + maxControlFramesWithoutWork
              + " PING, SETTINGS and empty DATA frames without a request (last: "
              + what
              + ")");
    }
  }

  /** A frame that carries a request or its data. */
  void work() {
    controlFrames = 0;
  }

  /** A reset the peer sent or caused. */
  void reset() throws Http2FrameException {
    long now = nanoClock.getAsLong();
    if (now - resetWindowStart >= resetWindowNanos) {
      resetWindowStart = now;
      resets = 0;
    }
    if (++resets > maxResetsPerWindow) {
      throw Http2FrameException.connection(
          ENHANCE_YOUR_CALM,
          "more than "
              + maxResetsPerWindow
              + " stream resets in "
              + resetWindowNanos / 1_000_000
              + " ms");
    }
  }
}
