package dev.tern.netty.internal.server;

import dev.tern.netty.internal.codec.GrpcInboundHeaders;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.Map;

/**
 * Netty header blocks (as {@link dev.tern.netty.internal.codec.OutboundHeaders} builds them for
 * both transports) as the engine's field arrays: names and values alternating, pseudo-headers
 * first. The arrays of {@code AsciiString}s that span their whole backing array are shared, not
 * copied. Static only.
 */
final class EngineHeaderFields {
  private EngineHeaderFields() {}

  static byte[][] of(Http2Headers headers) {
    byte[][] fields = new byte[headers.size() * 2][];
    int i = 0;
    for (Map.Entry<CharSequence, CharSequence> field : headers) {
      fields[i++] = GrpcInboundHeaders.bytes(field.getKey());
      fields[i++] = GrpcInboundHeaders.bytes(field.getValue());
    }
    return fields;
  }
}
