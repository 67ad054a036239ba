package dev.tern.netty.internal.client;

import dev.tern.netty.internal.http2.Http2Limits;

/**
 * The limits of Tern's HTTP/2 engine for a channel's connections, from its options. Static only.
 */
final class ClientLimits {
  private ClientLimits() {}

  /**
   * The channel's options as engine limits: its flow-control window and metadata limit. A client
   * accepts no stream from the server (push is refused), so the concurrency it announces is moot.
   *
   * <p>The DATA waiting for the server's credit is not bounded, per stream or per connection
   * (docs/netty-transport.md: the channel side has no such bounds): it is the application's own
   * requests, which {@code isReady()} paces, and a message is handed to the engine all at once
   * however large (in buffers of up to 1 MiB, without waiting for credit), so any bound would fail
   * every request larger than it (a 16 MiB request was reset with ENHANCE_YOUR_CALM at the engine's
   * default of 8 MiB per stream) and every set of concurrent requests larger than the connection's.
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
        Long.MAX_VALUE,
        Long.MAX_VALUE,
        d.maxControlFramesWithoutWork(),
        d.maxResetsPerWindow(),
        d.resetWindowNanos(),
        d.maxContinuationFrames());
  }
}
