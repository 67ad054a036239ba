package dev.tern.inprocess;

import dev.tern.Metadata;

/**
 * Measures metadata the way HTTP/2 counts a header list ({@code SETTINGS_MAX_HEADER_LIST_SIZE}):
 * for every entry, the name's length plus the value's length plus 32 bytes of overhead. Binary
 * ({@code -bin}) values count at their wire length, unpadded base64, so a limit means the same on
 * the in-process transport as on the network. Stateless; thread-safe.
 */
final class HeaderListSize {
  /** Per-entry overhead HTTP/2 adds to the name and value lengths (RFC 7540, 6.5.2). */
  private static final int ENTRY_OVERHEAD = 32;

  private static final byte[] BINARY_SUFFIX = {'-', 'b', 'i', 'n'};

  private HeaderListSize() {}

  /** The size of {@code metadata}. */
  static long of(Metadata metadata) {
    return of(metadata.toSerialized(), metadata.headerCount());
  }

  /** The size of the first {@code count} entries of {@code namesAndValues} (serialized form). */
  static long of(byte[][] namesAndValues, int count) {
    long size = 0;
    for (int i = 0; i < count; i++) {
      byte[] name = namesAndValues[2 * i];
      long valueLength = namesAndValues[2 * i + 1].length;
      if (isBinary(name)) {
        valueLength = (valueLength * 4 + 2) / 3; // unpadded base64
      }
      size += name.length + valueLength + ENTRY_OVERHEAD;
    }
    return size;
  }

  private static boolean isBinary(byte[] name) {
    int start = name.length - BINARY_SUFFIX.length;
    if (start < 0) {
      return false;
    }
    for (int i = 0; i < BINARY_SUFFIX.length; i++) {
      if (name[start + i] != BINARY_SUFFIX[i]) {
        return false;
      }
    }
    return true;
  }
}
