package dev.tern.netty.internal.codec;

import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * Netty's HPACK-based headers decoder, decoding into Tern's gRPC-specific holders instead of {@code
 * DefaultHttp2Headers}: {@link GrpcRequestHeaders} on a server, {@link GrpcResponseHeaders} on a
 * client. HPACK validation (pseudo-header order, forbidden connection headers) and the
 * header-list-size limit stay Netty's.
 *
 * <p>Not thread-safe: one per connection, used on its event loop.
 */
public final class GrpcHttp2HeadersDecoder extends DefaultHttp2HeadersDecoder {
  private final boolean server;

  /**
   * @param server whether requests (true) or responses (false) are decoded
   * @param maxHeaderListSize the largest header list accepted, counted as HTTP/2 does (name and
   *     value lengths plus 32 per field); larger lists fail the stream
   */
  public GrpcHttp2HeadersDecoder(boolean server, long maxHeaderListSize) {
    super(true, maxHeaderListSize);
    this.server = server;
    try {
      maxHeaderListSize(maxHeaderListSize, goAwayThreshold(maxHeaderListSize));
    } catch (Http2Exception e) {
      throw new IllegalArgumentException("invalid maxHeaderListSize: " + maxHeaderListSize, e);
    }
  }

  /**
   * Keeps a generous margin between the limit that fails one call (a stream error, which the caller
   * sees as RESOURCE_EXHAUSTED or HTTP 431) and the one that tears down the whole connection with
   * GOAWAY: Netty's default margin of 25% would turn a merely oversized header block into a dead
   * connection for every call on it.
   */
  @Override
  public void maxHeaderListSize(long max, long goAwayMax) throws Http2Exception {
    super.maxHeaderListSize(max, Math.max(goAwayMax, goAwayThreshold(max)));
  }

  private static long goAwayThreshold(long max) {
    long margin = Math.max(max, 16 * 1024);
    return max > Long.MAX_VALUE - margin ? Long.MAX_VALUE : max + margin;
  }

  @Override
  protected Http2Headers newHeaders() {
    int guess = numberOfHeadersGuess();
    return server ? new GrpcRequestHeaders(guess) : new GrpcResponseHeaders(guess);
  }
}
