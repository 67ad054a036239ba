package dev.tern.netty.internal.http2;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The static table of RFC 7541 Appendix A, indexes 1 to 61, with a lookup by name for the encoder.
 * Immutable and shared; the arrays it hands out must not be modified.
 */
final class HpackStaticTable {
  /** Number of entries; dynamic table indexes start after it. */
  static final int LENGTH = 61;

  private static final String[][] ENTRIES = {
    {":authority", ""},
    {":method", "GET"},
    {":method", "POST"},
    {":path", "/"},
    {":path", "/index.html"},
    {":scheme", "http"},
    {":scheme", "https"},
    {":status", "200"},
    {":status", "204"},
    {":status", "206"},
    {":status", "304"},
    {":status", "400"},
    {":status", "404"},
    {":status", "500"},
    {"accept-charset", ""},
    {"accept-encoding", "gzip, deflate"},
    {"accept-language", ""},
    {"accept-ranges", ""},
    {"accept", ""},
    {"access-control-allow-origin", ""},
    {"age", ""},
    {"allow", ""},
    {"authorization", ""},
    {"cache-control", ""},
    {"content-disposition", ""},
    {"content-encoding", ""},
    {"content-language", ""},
    {"content-length", ""},
    {"content-location", ""},
    {"content-range", ""},
    {"content-type", ""},
    {"cookie", ""},
    {"date", ""},
    {"etag", ""},
    {"expect", ""},
    {"expires", ""},
    {"from", ""},
    {"host", ""},
    {"if-match", ""},
    {"if-modified-since", ""},
    {"if-none-match", ""},
    {"if-range", ""},
    {"if-unmodified-since", ""},
    {"last-modified", ""},
    {"link", ""},
    {"location", ""},
    {"max-forwards", ""},
    {"proxy-authenticate", ""},
    {"proxy-authorization", ""},
    {"range", ""},
    {"referer", ""},
    {"refresh", ""},
    {"retry-after", ""},
    {"server", ""},
    {"set-cookie", ""},
    {"strict-transport-security", ""},
    {"transfer-encoding", ""},
    {"user-agent", ""},
    {"vary", ""},
    {"via", ""},
    {"www-authenticate", ""},
  };

  /** Names and values by index (slot 0 unused); entries with the same name share one array. */
  private static final byte[][] NAMES = new byte[LENGTH + 1][];

  private static final byte[][] VALUES = new byte[LENGTH + 1][];

  /** Open-addressed by name hash: the first index of each distinct name, 0 for an empty slot. */
  private static final int[] BY_NAME = new int[128];

  static {
    for (int i = 1; i <= LENGTH; i++) {
      byte[] name = ENTRIES[i - 1][0].getBytes(StandardCharsets.US_ASCII);
      NAMES[i] = i > 1 && Arrays.equals(NAMES[i - 1], name) ? NAMES[i - 1] : name;
      VALUES[i] = ENTRIES[i - 1][1].getBytes(StandardCharsets.US_ASCII);
      if (NAMES[i] == name) {
        int slot = hash(name) & (BY_NAME.length - 1);
        while (BY_NAME[slot] != 0) {
          slot = (slot + 1) & (BY_NAME.length - 1);
        }
        BY_NAME[slot] = i;
      }
    }
  }

  private HpackStaticTable() {}

  /** Entry {@code index}'s name, 1 <= index <= {@link #LENGTH}. */
  static byte[] name(int index) {
    return NAMES[index];
  }

  /** Entry {@code index}'s value, 1 <= index <= {@link #LENGTH}. */
  static byte[] value(int index) {
    return VALUES[index];
  }

  /** The first index with this name, or 0. */
  static int nameIndex(byte[] name) {
    int slot = hash(name) & (BY_NAME.length - 1);
    for (int index; (index = BY_NAME[slot]) != 0; slot = (slot + 1) & (BY_NAME.length - 1)) {
      if (Arrays.equals(NAMES[index], name)) {
        return index;
      }
    }
    return 0;
  }

  /** The index with this name and value, or 0. */
  static int index(int nameIndex, byte[] value) {
    if (nameIndex == 0) {
      return 0;
    }
    byte[] name = NAMES[nameIndex];
    for (int i = nameIndex; i <= LENGTH && NAMES[i] == name; i++) {
      if (Arrays.equals(VALUES[i], value)) {
        return i;
      }
    }
    return 0;
  }

  private static int hash(byte[] name) {
    int h = name.length;
    for (byte b : name) {
      h = 31 * h + b;
    }
    return h ^ (h >>> 7);
  }
}
