package dev.tern.zstd;

import java.io.IOException;

/**
 * Reads the header of a zstd frame (RFC 8878 section 3.1.1) and checks what this codec requires of
 * it before any of zstd's native memory is taken: the frame magic, zero reserved bits, no
 * dictionary (gRPC's zstd uses none), and a window of at most {@code 2^MAX_WINDOW_LOG} bytes.
 * Stateless; thread-safe.
 */
final class ZstdFrameHeader {
  /** 8 MiB windows: RFC 9659's floor for decoders, and the most Tern's decoder will allocate. */
  static final int MAX_WINDOW_LOG = 23;

  /** Magic, descriptor, window descriptor, the longest dictionary ID and content size fields. */
  static final int MAX_LENGTH = 4 + 1 + 1 + 4 + 8;

  private static final int MAGIC = 0xFD2FB528;
  private static final int MIN_LENGTH = 4 + 1 + 1;

  private ZstdFrameHeader() {}

  /**
   * Checks the frame header at the start of {@code bytes}, which holds the first {@link
   * #MAX_LENGTH} bytes of the message (fewer if the message is shorter).
   *
   * @throws IOException naming what is wrong with the header
   */
  static void check(byte[] bytes) throws IOException {
    if (bytes.length < MIN_LENGTH) {
      throw new IOException(
          "zstd frame truncated: " + bytes.length + " bytes, too few for a frame header");
    }
    int magic = (int) littleEndian(bytes, 0, 4);
    if (magic != MAGIC) {
      throw new IOException(
          String.format("not a zstd frame: magic number 0x%08X, expected 0x%08X", magic, MAGIC));
    }
    int descriptor = bytes[4] & 0xFF;
    if ((descriptor & 0x08) != 0) {
      throw new IOException("zstd frame header has its reserved bit set");
    }
    boolean singleSegment = (descriptor & 0x20) != 0;
    int contentSizeFlag = descriptor >>> 6;
    int dictionaryIdLength = new int[] {0, 1, 2, 4}[descriptor & 0x03];
    int contentSizeLength = new int[] {singleSegment ? 1 : 0, 2, 4, 8}[contentSizeFlag];
    int windowDescriptorLength = singleSegment ? 0 : 1;
    int length = 5 + windowDescriptorLength + dictionaryIdLength + contentSizeLength;
    if (bytes.length < length) {
      throw new IOException(
          "zstd frame truncated: " + bytes.length + " bytes, its header needs " + length);
    }
    int offset = 5 + windowDescriptorLength;
    long dictionaryId = littleEndian(bytes, offset, dictionaryIdLength);
    if (dictionaryId != 0) {
      throw new IOException(
          "zstd frame needs dictionary " + dictionaryId + "; gRPC's zstd uses no dictionary");
    }
    long window;
    if (singleSegment) {
      // The whole content is the window (an unsigned 64-bit size, so compare it as unsigned).
      window = littleEndian(bytes, offset + dictionaryIdLength, contentSizeLength);
      if (contentSizeLength == 2) {
        window += 256;
      }
    } else {
      int windowByte = bytes[5] & 0xFF;
      int windowLog = 10 + (windowByte >>> 3);
      long base = 1L << windowLog;
      window = base + (base / 8) * (windowByte & 0x07);
    }
    if (Long.compareUnsigned(window, 1L << MAX_WINDOW_LOG) > 0) {
      throw new IOException(
          "zstd frame needs a window of "
              + Long.toUnsignedString(window)
              + " bytes, over the "
              + (1 << MAX_WINDOW_LOG)
              + " this decoder allows");
    }
  }

  private static long littleEndian(byte[] bytes, int offset, int length) {
    long value = 0;
    for (int i = length - 1; i >= 0; i--) {
      value = (value << 8) | (bytes[offset + i] & 0xFF);
    }
    return value;
  }
}
