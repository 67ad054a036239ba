package dev.tern.netty.internal.http2;

import java.util.Arrays;

/**
 * An HPACK dynamic table (RFC 7541 section 2.3.2 and 4): entries newest first, evicted oldest first
 * to keep the size (each entry's name and value lengths plus 32) within the maximum.
 *
 * <p>The arrays are made at the first insertion, so a connection that never indexes a header holds
 * only this object. Confined to one connection's event loop; not thread-safe.
 */
final class HpackDynamicTable {
  /** Per RFC 7541 section 4.1, an entry's size is its name and value lengths plus this. */
  static final int ENTRY_OVERHEAD = 32;

  private byte[][] names;
  private byte[][] values;
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
    return names[position(index)];
  }

  /** Entry {@code index}'s value, 1 (newest) <= index <= {@link #length()}. */
  byte[] value(int index) {
    return values[position(index)];
  }

  private int position(int index) {
    return (oldest + count - index) % names.length;
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
    if (names == null) {
      names = new byte[8][];
      values = new byte[8][];
    } else if (count == names.length) {
      grow();
    }
    int position = (oldest + count) % names.length;
    names[position] = name;
    values[position] = value;
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
      if (Arrays.equals(names[position], name)) {
        if (Arrays.equals(values[position], value)) {
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
    size -= (long) names[oldest].length + values[oldest].length + ENTRY_OVERHEAD;
    names[oldest] = null;
    values[oldest] = null;
    oldest = (oldest + 1) % names.length;
    count--;
  }

  private void grow() {
    byte[][] newNames = new byte[names.length * 2][];
    byte[][] newValues = new byte[names.length * 2][];
    for (int i = 0; i < count; i++) {
      newNames[i] = names[(oldest + i) % names.length];
      newValues[i] = values[(oldest + i) % names.length];
    }
    names = newNames;
    values = newValues;
    oldest = 0;
  }
}
