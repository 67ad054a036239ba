package dev.tern.netty.internal.http2;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A map from positive {@code int} keys (stream ids) to values, by open addressing over an {@code
 * int} array: a lookup boxes nothing (a {@code HashMap<Integer, ...>} allocates an {@code Integer}
 * for every id above 127, several times per call), and an empty map holds no arrays and no view
 * objects, which matters for the many connections that sit idle. The arrays are made at the first
 * entry, sized so that at most half their slots are used, and kept when entries leave.
 *
 * <p>0 marks an empty slot, so keys must be positive. Removal moves later entries of the same probe
 * run back (no tombstones), so lookups stay short however many entries came and went.
 *
 * <p>Not thread-safe: each map belongs to one connection and is used on its event loop.
 *
 * @param <V> the values
 */
public final class IntMap<V> {
  private static final int FIRST_CAPACITY = 4;

  private int[] keys;
  private Object[] values;
  private int size;

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** The value of {@code key}, or null. */
  @SuppressWarnings("unchecked")
  public V get(int key) {
    if (size == 0) {
      return null;
    }
    int mask = keys.length - 1;
    for (int i = slot(key, mask); keys[i] != 0; i = (i + 1) & mask) {
      if (keys[i] == key) {
        return (V) values[i];
      }
    }
    return null;
  }

  /**
   * Maps {@code key} to {@code value}, replacing any value it had.
   *
   * @return the value replaced, or null
   * @throws IllegalArgumentException if {@code key} is not positive or {@code value} is null
   */
  @SuppressWarnings("unchecked")
  public V put(int key, V value) {
    if (key <= 0) {
      throw new IllegalArgumentException("key must be positive: " + key);
    }
    if (value == null) {
      throw new IllegalArgumentException("value must not be null (key " + key + ")");
    }
    if (keys == null) {
      keys = new int[FIRST_CAPACITY];
      values = new Object[FIRST_CAPACITY];
    } else if (2 * (size + 1) > keys.length) {
      grow();
    }
    int mask = keys.length - 1;
    int i = slot(key, mask);
    while (keys[i] != 0) {
      if (keys[i] == key) {
        Object old = values[i];
        values[i] = value;
        return (V) old;
      }
      i = (i + 1) & mask;
    }
    keys[i] = key;
    values[i] = value;
    size++;
    return null;
  }

  /** Removes {@code key}; returns its value, or null if it had none. */
  @SuppressWarnings("unchecked")
  public V remove(int key) {
    if (size == 0) {
      return null;
    }
    int mask = keys.length - 1;
    int i = slot(key, mask);
    while (keys[i] != key) {
      if (keys[i] == 0) {
        return null;
      }
      i = (i + 1) & mask;
    }
    Object removed = values[i];
    size--;
    // Backward shift: each later entry of the run moves into the hole unless its home slot lies
    // cyclically within (hole, j], where it would no longer be found.
    int hole = i;
    for (int j = (i + 1) & mask; keys[j] != 0; j = (j + 1) & mask) {
      int home = slot(keys[j], mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        keys[hole] = keys[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    keys[hole] = 0;
    values[hole] = null;
    return (V) removed;
  }

  /** Removes every entry (the arrays are kept). */
  public void clear() {
    if (size > 0) {
      Arrays.fill(keys, 0);
      Arrays.fill(values, null);
      size = 0;
    }
  }

  /**
   * The values now, in no particular order: a copy, which callers may use while the map changes.
   */
  @SuppressWarnings("unchecked")
  public List<V> values() {
    if (size == 0) {
      return List.of();
    }
    List<V> copy = new ArrayList<>(size);
    for (Object value : values) {
      if (value != null) {
        copy.add((V) value);
      }
    }
    return copy;
  }

  private void grow() {
    int[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new int[2 * oldKeys.length];
    values = new Object[2 * oldKeys.length];
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != 0) {
        insertNew(oldKeys[i], oldValues[i]);
      }
    }
  }

  private void insertNew(int key, Object value) {
    int mask = keys.length - 1;
    int i = slot(key, mask);
    while (keys[i] != 0) {
      i = (i + 1) & mask;
    }
    keys[i] = key;
    values[i] = value;
    size++;
  }

  /**
   * The home slot of {@code key}. Stream ids of one side step by 2, so they are multiplied by an
   * odd constant and folded to spread them over every slot.
   */
  private static int slot(int key, int mask) {
    int h = key * 0x9E3779B1;
    return (h ^ (h >>> 16)) & mask;
  }
}
