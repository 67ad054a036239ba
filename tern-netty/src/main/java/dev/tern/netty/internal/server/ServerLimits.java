package dev.tern.netty.internal.server;

import dev.tern.netty.internal.http2.Http2Limits;

/**
 * The limits of Tern's HTTP/2 engine for a server's connections, from the server's options. Static
 * only.
 */
final class ServerLimits {
  /** A HEADERS frame's worth of room above the header list limit for a block's encoding. */
  private static final int BLOCK_SLACK = 16_384;

  private ServerLimits() {}

  /**
   * The server's options as engine limits: its concurrency limit, flow-control window, metadata
   * limit, reset rate and CONTINUATION bound. A header block may take twice the metadata limit plus
   * a frame (HPACK can spend more bytes than the list it carries), so that a list over the limit is
   * still read whole and answered 431. The engine's own limits on DATA waiting for the client's
   * credit are left at their widest: {@link UnreadResponseLimits} bounds those bytes per stream and
   * per connection before they reach the engine.
   */
  static Http2Limits of(ServerOptions options) {
    Http2Limits defaults = Http2Limits.defaults();
    int headerList = options.maxInboundMetadataSize();
    long block = 2L * headerList + BLOCK_SLACK;
    return new Http2Limits(
        options.maxConcurrentCallsPerConnection(),
        options.flowControlWindow(),
        Math.max(65_535, options.flowControlWindow()),
        defaults.maxFrameSize(),
        headerList,
        (int) Math.min(Integer.MAX_VALUE, block),
        Long.MAX_VALUE,
        Long.MAX_VALUE,
        defaults.maxControlFramesWithoutWork(),
        options.maxRstFramesPerWindow(),
        options.rstWindowNanos(),
        options.maxContinuationFrames());
  }
}
