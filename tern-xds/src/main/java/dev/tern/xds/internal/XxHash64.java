package dev.tern.xds.internal;

import java.nio.charset.StandardCharsets;

/**
 * XXH64, the 64-bit xxHash of Yann Collet's specification (doc/xxhash_spec.md of the xxHash
 * project), the hash Envoy and gRPC use for ring hash (gRFC A42): the ring's points and the calls'
 * header hash policies. Stateless; thread-safe; allocates nothing for {@code byte[]} input.
 */
public final class XxHash64 {
  private static final long PRIME_1 = 0x9E3779B185EBCA87L;
  private static final long PRIME_2 = 0xC2B2AE3D27D4EB4FL;
  private static final long PRIME_3 = 0x165667B19E3779F9L;
  private static final long PRIME_4 = 0x85EBCA77C2B2AE63L;
  private static final long PRIME_5 = 0x27D4EB2F165667C5L;

  private XxHash64() {}

  /** The hash of {@code text}'s UTF-8 bytes with seed 0. */
  public static long hash(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return hash(bytes, 0, bytes.length, 0);
  }

  /** The hash of {@code value}'s eight bytes, little-endian, with seed 0. */
  public static long hash(long value) {
    long acc = PRIME_5 + 8;
    acc ^= round(0, value);
    return avalanche(Long.rotateLeft(acc, 27) * PRIME_1 + PRIME_4);
  }

  /** The hash of {@code length} bytes of {@code data} from {@code offset}, with {@code seed}. */
  public static long hash(byte[] data, int offset, int length, long seed) {
    if (offset < 0 || length < 0 || offset > data.length - length) {
      throw new IndexOutOfBoundsException(
          "offset " + offset + ", length " + length + " of " + data.length + " bytes");
    }
    int p = offset;
    int end = offset + length;
    long acc;
    if (length >= 32) {
      long v1 = seed + PRIME_1 + PRIME_2;
      long v2 = seed + PRIME_2;
      long v3 = seed;
      long v4 = seed - PRIME_1;
      for (int limit = end - 32; p <= limit; p += 32) {
        v1 = round(v1, lane64(data, p));
        v2 = round(v2, lane64(data, p + 8));
        v3 = round(v3, lane64(data, p + 16));
        v4 = round(v4, lane64(data, p + 24));
      }
      acc =
          Long.rotateLeft(v1, 1)
              + Long.rotateLeft(v2, 7)
              + Long.rotateLeft(v3, 12)
              + Long.rotateLeft(v4, 18);
      acc = merge(acc, v1);
      acc = merge(acc, v2);
      acc = merge(acc, v3);
      acc = merge(acc, v4);
    } else {
      acc = seed + PRIME_5;
    }
    acc += length;
    for (; p + 8 <= end; p += 8) {
      acc ^= round(0, lane64(data, p));
      acc = Long.rotateLeft(acc, 27) * PRIME_1 + PRIME_4;
    }
    if (p + 4 <= end) {
      acc ^= (lane32(data, p) & 0xFFFF_FFFFL) * PRIME_1;
      acc = Long.rotateLeft(acc, 23) * PRIME_2 + PRIME_3;
      p += 4;
    }
    for (; p < end; p++) {
      acc ^= (data[p] & 0xFFL) * PRIME_5;
      acc = Long.rotateLeft(acc, 11) * PRIME_1;
    }
    return avalanche(acc);
  }

  private static long round(long acc, long lane) {
    return Long.rotateLeft(acc + lane * PRIME_2, 31) * PRIME_1;
  }

  private static long merge(long acc, long lane) {
    return (acc ^ round(0, lane)) * PRIME_1 + PRIME_4;
  }

  private static long avalanche(long acc) {
    acc ^= acc >>> 33;
    acc *= PRIME_2;
    acc ^= acc >>> 29;
    acc *= PRIME_3;
    return acc ^ (acc >>> 32);
  }

  private static long lane64(byte[] data, int p) {
    return (lane32(data, p) & 0xFFFF_FFFFL) | ((long) lane32(data, p + 4) << 32);
  }

  private static int lane32(byte[] data, int p) {
    return (data[p] & 0xFF)
        | (data[p + 1] & 0xFF) << 8
        | (data[p + 2] & 0xFF) << 16
        | (data[p + 3] & 0xFF) << 24;
  }
}
