package dev.tern.netty.internal.server;

import dev.tern.netty.internal.codec.GrpcInboundHeaders;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.Map;

/**
 * Netty header blocks (as {@link dev.tern.netty.internal.codec.OutboundHeaders} builds them for
 * both transports) as the engine's field arrays: names and values alternating, pseudo-headers
 * first. The arrays of {@code AsciiString}s that span their whole backing array are shared, not
 * copied.
 *
 * <p>Most calls of a server send the same block object ({@code OutboundHeaders} shares the blocks
 * of plain responses and OK trailers), so the last response block and the last trailer block
 * converted are remembered with their arrays, and the next call that sends the same object gets the
 * same arrays instead of a conversion. The arrays returned are therefore shared: the engine only
 * reads them, and so must every caller.
 *
 * <p>Thread-safe: each remembered block is one immutable pair in a volatile field, which any event
 * loop may replace; a reader sees some complete pair.
 */
final class EngineHeaderFields {
  /** A block and its field arrays. Immutable. */
  private record Converted(Http2Headers headers, byte[][] fields) {}

  /** The last block of one kind converted, replaced by whichever event loop converts another. */
  private static final class Remembered {
    private volatile Converted last = new Converted(null, null);

    byte[][] of(Http2Headers headers) {
      Converted remembered = last;
      if (remembered.headers() == headers) {
        return remembered.fields();
      }
      byte[][] fields = EngineHeaderFields.of(headers);
      last = new Converted(headers, fields);
      return fields;
    }
  }

  private static final Remembered RESPONSES = new Remembered();
  private static final Remembered TRAILERS = new Remembered();

  private EngineHeaderFields() {}

  /** The fields of a call's response headers; shared with other calls (read only). */
  static byte[][] ofResponse(Http2Headers headers) {
    return RESPONSES.of(headers);
  }

  /** The fields of a call's trailers; shared with other calls (read only). */
  static byte[][] ofTrailers(Http2Headers trailers) {
    return TRAILERS.of(trailers);
  }

  /** The fields of {@code headers}, converted now. */
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
