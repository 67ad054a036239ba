package dev.tern.netty.internal.http2;

/**
 * The parameters of one SETTINGS frame (RFC 9113 section 6.5.2): each known one, or -1 when the
 * frame did not carry it. Unknown identifiers are ignored when read and never written. A plain
 * mutable value, confined to the thread that made it.
 */
public final class Http2Settings {
  public static final int HEADER_TABLE_SIZE = 0x1;
  public static final int ENABLE_PUSH = 0x2;
  public static final int MAX_CONCURRENT_STREAMS = 0x3;
  public static final int INITIAL_WINDOW_SIZE = 0x4;
  public static final int MAX_FRAME_SIZE = 0x5;
  public static final int MAX_HEADER_LIST_SIZE = 0x6;

  private static final int KNOWN = 6;

  private final long[] values = {-1, -1, -1, -1, -1, -1, -1};

  /** Parameter {@code id}'s value, or -1 if absent (or unknown). */
  public long get(int id) {
    return id >= 1 && id <= KNOWN ? values[id] : -1;
  }

  /**
   * Sets a known parameter; unknown ones are ignored, as RFC 9113 requires of a receiver.
   *
   * @return this
   */
  public Http2Settings set(int id, long value) {
    if (id >= 1 && id <= KNOWN) {
      if (value < 0 || value > 0xFFFF_FFFFL) {
        throw new IllegalArgumentException("setting " + id + " out of range: " + value);
      }
      values[id] = value;
    }
    return this;
  }

  /** How many known parameters are present. */
  int count() {
    int count = 0;
    for (int id = 1; id <= KNOWN; id++) {
      if (values[id] >= 0) {
        count++;
      }
    }
    return count;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("Http2Settings{");
    for (int id = 1; id <= KNOWN; id++) {
      if (values[id] >= 0) {
        s.append(s.length() > 14 ? ", " : "").append(id).append('=').append(values[id]);
      }
    }
    return s.append('}').toString();
  }
}
