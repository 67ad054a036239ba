package dev.tern.netty.internal.client;

import dev.tern.netty.internal.http2.HeaderSink;

/**
 * The sink of a connection's response header blocks (and trailer blocks) on Tern's HTTP/2 engine:
 * each is decoded into the {@link GrpcResponseHeaders} that {@link ClientStreamState} reads to
 * judge how the call ends ({@link Http2Statuses}). The decoder's arrays are handed on as they are
 * ({@link GrpcResponseHeaders#add(byte[], byte[])}), neither copied nor wrapped. A field that makes
 * the block malformed (an upper-case or invalid name; NUL, CR or LF in a value) is kept as the
 * block's problem and later fields are ignored, since HPACK must decode the block to its end to
 * stay in step with the server; the call then fails INTERNAL.
 *
 * <p>One per connection, reset by {@link #start} for each block (blocks never interleave); event
 * loop only, not thread-safe.
 */
public final class ResponseHeaderSink implements HeaderSink {
  private final GrpcResponseHeaders headers = GrpcResponseHeaders.create();
  private String malformed;

  /**
   * Begins a block. The previous block's reader ({@link ClientStreamState#onHeaders}) has taken its
   * metadata and keeps nothing else of the holder, so the holder is emptied and reused.
   */
  public void start() {
    headers.reset();
    malformed = null;
  }

  @Override
  public void header(byte[] name, byte[] value, boolean sensitive) {
    if (malformed != null) {
      return;
    }
    try {
      headers.add(name, value);
    } catch (IllegalArgumentException e) {
      malformed = e.getMessage();
    }
  }

  /** The block decoded since {@link #start}. */
  public GrpcResponseHeaders headers() {
    return headers;
  }

  /** Why the block is malformed, or null. */
  public String malformed() {
    return malformed;
  }
}
