package dev.tern.netty.internal.client;

import io.netty.util.AsciiString;

/**
 * The {@link AsciiString}s wrapping the values of one connection's reserved response fields ({@link
 * GrpcResponseHeaders}: {@code :status}, {@code content-type}, {@code grpc-status}, {@code
 * grpc-message}), kept so that a value the HPACK decoder hands out again as the same array is
 * wrapped once rather than once per block. Values the decoder takes from its static or dynamic
 * table come as the table's array every time ({@code :status: 200}, {@code content-type:
 * application/grpc}, {@code grpc-status: 0}). Every other field goes into the metadata as the
 * decoder's arrays, unwrapped.
 *
 * <p>An open-addressed table of {@value #SLOTS} slots made at the first field: an array is looked
 * for in the {@value #PROBES} slots from the one its identity hash names, and put in the first
 * empty one of them, or, when none is empty, in that first slot in place of another. A connection's
 * table values (a handful of arrays) thus rarely push each other out. Arrays longer than {@value
 * #MAX_LENGTH} bytes are not kept, so at most {@value #SLOTS} short arrays are held alive. A
 * wrapper shares its array, which is safe because neither the decoder nor a {@link
 * dev.tern.netty.internal.http2.HeaderSink} ever modifies one.
 *
 * <p>One per connection; event loop only, not thread-safe.
 */
final class DecodedFieldStrings {
  /** Room for a response's and its trailers' table fields; a power of two. */
  private static final int SLOTS = 32;

  /**
   * How many slots an array may take: with one slot, two of a connection's eight or so table arrays
   * shared it on about half the connections and pushed each other out on every response.
   */
  private static final int PROBES = 4;

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
    int home = System.identityHashCode(bytes) & (SLOTS - 1);
    int empty = -1;
    for (int i = 0; i < PROBES; i++) {
      int slot = (home + i) & (SLOTS - 1);
      AsciiString held = slots[slot];
      if (held == null) {
        if (empty < 0) {
          empty = slot;
        }
      } else if (held.array() == bytes) {
        return held;
      }
    }
    AsciiString s = new AsciiString(bytes, false);
    slots[empty >= 0 ? empty : home] = s;
    return s;
  }
}
