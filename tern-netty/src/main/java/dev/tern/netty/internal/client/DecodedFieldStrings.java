package dev.tern.netty.internal.client;

import io.netty.util.AsciiString;

/**
 * The {@link AsciiString}s wrapping one connection's decoded response fields, kept so that a field
 * the HPACK decoder hands out again as the same array is wrapped once rather than once per block.
 * Fields the decoder takes from its static or dynamic table come as the table's array every time,
 * and those are most of a gRPC response's ({@code :status: 200}, {@code content-type:
 * application/grpc}, {@code grpc-accept-encoding}, {@code grpc-status: 0}): about 220 bytes a call
 * on bench-compare's client allocation row.
 *
 * <p>A direct-mapped cache of {@value #SLOTS} slots chosen by the array's identity hash, made at
 * the first field: an array whose slot another holds takes it over, and arrays longer than {@value
 * #MAX_LENGTH} bytes are not kept, so it never holds more than {@value #SLOTS} short arrays alive.
 * A wrapper shares its array, which is safe because neither the decoder nor a {@link
 * dev.tern.netty.internal.http2.HeaderSink} ever modifies one.
 *
 * <p>One per connection; event loop only, not thread-safe.
 */
final class DecodedFieldStrings {
  /** Room for a response's and its trailers' table fields with few collisions; a power of two. */
  private static final int SLOTS = 32;

  /** Longer fields are rare in responses and not worth keeping alive. */
  private static final int MAX_LENGTH = 64;

  private AsciiString[] slots;

  /** {@code bytes} as an {@link AsciiString} over the same array. */
  AsciiString of(byte[] bytes) {
    if (bytes.length > MAX_LENGTH) {
      return new AsciiString(bytes, false);
    }
    if (slots == null) {
      slots = new AsciiString[SLOTS];
    }
    int slot = System.identityHashCode(bytes) & (SLOTS - 1);
    AsciiString s = slots[slot];
    if (s == null || s.array() != bytes) {
      s = new AsciiString(bytes, false);
      slots[slot] = s;
    }
    return s;
  }
}
