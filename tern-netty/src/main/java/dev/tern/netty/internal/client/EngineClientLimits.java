package dev.tern.netty.internal.client;

import dev.tern.netty.internal.http2.Http2Limits;

/**
 * The limits of Tern's HTTP/2 engine for a channel's connections, from its options. Static only.
 */
final class EngineClientLimits {
  private EngineClientLimits() {}

  /**
   * The channel's options as engine limits: its flow-control window and metadata limit. A client
   * accepts no stream from the server (push is refused), so the concurrency it announces is moot.
   */
  static Http2Limits of(NettyClientTransport.TransportOptions options) {
    Http2Limits d = Http2Limits.defaults();
    int window = options.flowControlWindow();
    int headerList = options.maxInboundMetadataSize();
    return new Http2Limits(
        1,
        window,
        Math.max(65_535, window),
        d.maxFrameSize(),
        headerList,
        (int) Math.min(Integer.MAX_VALUE, 2L * headerList + 16_384),
        d.maxQueuedBytesPerStream(),
        d.maxQueuedBytesPerConnection(),
        d.maxControlFramesWithoutWork(),
        d.maxResetsPerWindow(),
        d.resetWindowNanos(),
        d.maxContinuationFrames());
  }
}
