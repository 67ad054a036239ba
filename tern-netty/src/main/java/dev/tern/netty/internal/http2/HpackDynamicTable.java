package dev.tern.netty.internal.http2;

import java.util.Arrays;

/**
 * An HPACK dynamic table (RFC 7541 section 2.3.2 and 4): entries newest first, evicted oldest first
 * to keep the size (each entry's name and value lengths plus 32) within the maximum.
 *
 * <p>Names and values share one array, made at the first insertion for a few entries (a gRPC
 * connection indexes a handful) and doubled when full, so a connection that never indexes a header
 * holds only this object. Confined to one connection's event loop; not thread-safe.
 */
final class HpackDynamicTable {
  /** Per RFC 7541 section 4.1, an entry's size is its name and value lengths plus this. */
  static final int ENTRY_OVERHEAD = 32;

  /** Entries the array is made for at the first insertion. */
  static final int INITIAL_CAPACITY = 4;

  /** Entry at ring position p: its name at 2p, its value at 2p + 1. */
  private byte[][] entries;

  private int oldest; // ring position of the oldest entry
  private int count;
  private long size;
  private long maxSize;

  HpackDynamicTable(long maxSize) {
    this.maxSize = maxSize;
  }

  /** Number of entries. */
  int length() {
    return count;
  }

  /** Sum of the entries' sizes. */
  long size() {
    return size;
  }

  long maxSize() {
    return maxSize;
  }

  /** Changes the maximum size, evicting entries until they fit. */
  void setMaxSize(long maxSize) {
    this.maxSize = maxSize;
    while (size > maxSize) {
      evictOldest();
    }
  }

  /** Entry {@code index}'s name, 1 (newest) <= index <= {@link #length()}. */
  byte[] name(int index) {
    return entries[2 * position(index)];
  }

  /** Entry {@code index}'s value, 1 (newest) <= index <= {@link #length()}. */
  byte[] value(int index) {
    return entries[2 * position(index) + 1];
  }

  private int capacity() {
    return entries.length / 2;
  }

  private int position(int index) {
    return (oldest + count - index) % capacity();
  }

  /**
   * Inserts an entry, evicting the oldest ones to make room; an entry larger than the maximum
   * empties the table and is not inserted (RFC 7541 section 4.4).
   */
  void add(byte[] name, byte[] value) {
    long entrySize = (long) name.length + value.length + ENTRY_OVERHEAD;
    while (count > 0 && size + entrySize > maxSize) {
      evictOldest();
    }
    if (entrySize > maxSize) {
      return;
    }
    if (entries == null) {
      entries = new byte[2 * INITIAL_CAPACITY][];
    } else if (count == capacity()) {
      grow();
    }
    int position = (oldest + count) % capacity();
    entries[2 * position] = name;
    entries[2 * position + 1] = value;
    count++;
    size += entrySize;
  }

  /**
   * For the encoder: the index of the newest entry with this name and value, or minus the index of
   * the newest with this name, or 0.
   */
  int find(byte[] name, byte[] value) {
    int nameMatch = 0;
    for (int i = 1; i <= count; i++) {
      int position = position(i);
      if (Arrays.equals(entries[2 * position], name)) {
        if (Arrays.equals(entries[2 * position + 1], value)) {
          return i;
        }
        if (nameMatch == 0) {
          nameMatch = -i;
        }
      }
    }
    return nameMatch;
  }

  private void evictOldest() {
    size -= (long) entries[2 * oldest].length + entries[2 * oldest + 1].length + ENTRY_OVERHEAD;
    entries[2 * oldest] = null;
    entries[2 * oldest + 1] = null;
    oldest = (oldest + 1) % capacity();
    count--;
  }

  /** Doubles the array, the oldest entry first. */
  private void grow() {
    byte[][] grown = new byte[2 * entries.length][];
    for (int i = 0; i < count; i++) {
      int from = 2 * ((oldest + i) % capacity());
      grown[2 * i] = entries[from];
      grown[2 * i + 1] = entries[from + 1];
    }
    entries = grown;
    oldest = 0;
  }
}
