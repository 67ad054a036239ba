package dev.tern.netty.internal.client;

import dev.tern.netty.internal.codec.GrpcResponseHeaders;
import dev.tern.netty.internal.http2.HeaderSink;

/**
 * One response header block (or trailer block) on Tern's HTTP/2 engine, decoded into the {@link
 * GrpcResponseHeaders} that {@link ClientStreamState} reads on either HTTP/2 implementation, so a
 * response is judged alike on both ({@link Http2Statuses}). The decoder's arrays are wrapped, not
 * copied. A field that makes the block malformed (an upper-case or invalid name; NUL, CR or LF in a
 * value) is kept as the block's problem and later fields are ignored, since HPACK must decode the
 * block to its end to stay in step with the server; the call then fails INTERNAL. Fields are
 * wrapped through the connection's {@link DecodedFieldStrings}.
 *
 * <p>One per header block; event loop only, not thread-safe.
 */
final class EngineResponseHeaders implements HeaderSink {
  private final GrpcResponseHeaders headers = GrpcResponseHeaders.create();
  private final DecodedFieldStrings strings;
  private String malformed;

  /** A block of the connection whose field wrappers {@code strings} keeps. */
  EngineResponseHeaders(DecodedFieldStrings strings) {
    this.strings = strings;
  }

  @Override
  public void header(byte[] name, byte[] value, boolean sensitive) {
    if (malformed != null) {
      return;
    }
    try {
      headers.add(strings.of(name), strings.of(value));
    } catch (IllegalArgumentException e) {
      malformed = e.getMessage();
    }
  }

  GrpcResponseHeaders headers() {
    return headers;
  }

  /** Why the block is malformed, or null. */
  String malformed() {
    return malformed;
  }
}
