package dev.tern.netty.internal.http2;

import java.util.concurrent.TimeUnit;

/**
 * The limits one connection keeps (docs/security.md), checked once here so nothing throws on the
 * hot path. Immutable.
 *
 * @param maxConcurrentStreams SETTINGS_MAX_CONCURRENT_STREAMS announced: streams the peer may have
 *     open at once; more get RST_STREAM(REFUSED_STREAM)
 * @param initialWindowSize SETTINGS_INITIAL_WINDOW_SIZE announced: each stream's receive window
 * @param connectionWindowSize the connection's receive window (raised from 65,535 at the start)
 * @param maxFrameSize SETTINGS_MAX_FRAME_SIZE announced
 * @param maxHeaderListSize SETTINGS_MAX_HEADER_LIST_SIZE announced: larger header lists reach the
 *     listener as {@code onHeaderListTooLarge}
 * @param maxHeaderBlockBytes the largest header block read at all: larger ones end the connection
 * @param maxQueuedBytesPerStream DATA waiting for send credit on one stream: more resets it
 *     (ENHANCE_YOUR_CALM)
 * @param maxQueuedBytesPerConnection the same for the whole connection: more ends it
 * @param maxControlFramesWithoutWork PINGs, SETTINGS and empty DATA frames since the last request
 * @param maxResetsPerWindow resets sent by or caused by the peer per {@code resetWindowNanos}
 * @param maxContinuationFrames CONTINUATION frames one header block may have (the CONTINUATION
 *     flood); more end the connection with ENHANCE_YOUR_CALM
 */
public record Http2Limits(
    int maxConcurrentStreams,
    int initialWindowSize,
    int connectionWindowSize,
    int maxFrameSize,
    int maxHeaderListSize,
    int maxHeaderBlockBytes,
    long maxQueuedBytesPerStream,
    long maxQueuedBytesPerConnection,
    int maxControlFramesWithoutWork,
    int maxResetsPerWindow,
    long resetWindowNanos,
    int maxContinuationFrames) {

  /** The defaults of docs/security.md. */
  public static Http2Limits defaults() {
    return new Http2Limits(
        1000,
        1 << 20,
        1 << 20,
        Http2Frames.DEFAULT_MAX_FRAME_SIZE,
        8192,
        8192 + 16384,
        8L << 20,
        64L << 20,
        10_000,
        200,
        TimeUnit.SECONDS.toNanos(30),
        Http2FrameReader.MAX_CONTINUATION_FRAMES);
  }

  public Http2Limits {
    positive(maxConcurrentStreams, "maxConcurrentStreams");
    if (initialWindowSize < 0) {
      throw new IllegalArgumentException("initialWindowSize must not be negative");
    }
    if (connectionWindowSize < 65_535) {
      throw new IllegalArgumentException("connectionWindowSize must be at least 65535");
    }
    if (maxFrameSize < Http2Frames.DEFAULT_MAX_FRAME_SIZE
        || maxFrameSize > Http2Frames.MAX_FRAME_SIZE_UPPER_BOUND) {
      throw new IllegalArgumentException(
          "maxFrameSize must be in 16384..16777215: " + maxFrameSize);
    }
    positive(maxHeaderListSize, "maxHeaderListSize");
    positive(maxHeaderBlockBytes, "maxHeaderBlockBytes");
    positive(maxQueuedBytesPerStream, "maxQueuedBytesPerStream");
    positive(maxQueuedBytesPerConnection, "maxQueuedBytesPerConnection");
    positive(maxControlFramesWithoutWork, "maxControlFramesWithoutWork");
    positive(maxResetsPerWindow, "maxResetsPerWindow");
    positive(resetWindowNanos, "resetWindowNanos");
    positive(maxContinuationFrames, "maxContinuationFrames");
  }

  private static void positive(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
  }
}
