package dev.tern.netty.internal.http2;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The dynamic table's ring (names and values in one array that starts small and doubles) against a
 * plain list of the same entries: every index, the size, and the eviction order agree through
 * growth, wrap-around, shrinking and emptying.
 */
class HpackDynamicTableTest {
  private record Entry(byte[] name, byte[] value) {
    long size() {
      return name.length + value.length + HpackDynamicTable.ENTRY_OVERHEAD;
    }
  }

  @Test
  void agreesWithAListThroughGrowthWrapAndEviction() {
    Random random = new Random(7);
    HpackDynamicTable table = new HpackDynamicTable(4096);
    Deque<Entry> expected = new ArrayDeque<>(); // newest first
    long maxSize = 4096;
    for (int i = 0; i < 5_000; i++) {
      if (i % 500 == 499) {
        // Now and then the limit moves (a SETTINGS_HEADER_TABLE_SIZE change), 0 included.
        maxSize = random.nextInt(5) == 0 ? 0 : 64 + random.nextInt(4096);
        table.setMaxSize(maxSize);
        evict(expected, maxSize, 0);
      } else {
        Entry entry =
            new Entry(
                ("name-" + random.nextInt(40)).getBytes(US_ASCII),
                "v".repeat(random.nextInt(200)).getBytes(US_ASCII));
        table.add(entry.name(), entry.value());
        if (entry.size() > maxSize) {
          expected.clear();
        } else {
          evict(expected, maxSize, entry.size());
          expected.addFirst(entry);
        }
      }
      assertSame(table, expected);
    }
  }

  @Test
  void findsTheNewestMatch() {
    HpackDynamicTable table = new HpackDynamicTable(4096);
    for (int i = 0; i < 2 * HpackDynamicTable.INITIAL_CAPACITY + 1; i++) {
      table.add(bytes("n" + (i % 3)), bytes("v" + i));
    }
    // Newest first: index 1 is v8 (n2), 2 is v7 (n1), 3 is v6 (n0), ...
    assertThat(table.find(bytes("n2"), bytes("v8"))).isEqualTo(1);
    assertThat(table.find(bytes("n0"), bytes("v0"))).isEqualTo(9);
    assertThat(table.find(bytes("n1"), bytes("other"))).isEqualTo(-2);
    assertThat(table.find(bytes("none"), bytes("v1"))).isZero();
  }

  private static void evict(Deque<Entry> expected, long maxSize, long room) {
    long size = expected.stream().mapToLong(Entry::size).sum();
    while (!expected.isEmpty() && size + room > maxSize) {
      size -= expected.removeLast().size();
    }
  }

  private static void assertSame(HpackDynamicTable table, Deque<Entry> expected) {
    assertThat(table.length()).isEqualTo(expected.size());
    assertThat(table.size()).isEqualTo(expected.stream().mapToLong(Entry::size).sum());
    Iterator<Entry> entries = expected.iterator();
    for (int index = 1; index <= expected.size(); index++) {
      Entry entry = entries.next();
      assertThat(table.name(index)).isEqualTo(entry.name());
      assertThat(table.value(index)).isEqualTo(entry.value());
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(US_ASCII);
  }
}
