package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;

/**
 * Decodes HPACK header blocks (RFC 7541) into a {@link HeaderSink}, one field at a time.
 *
 * <p>Limits, all checked while decoding:
 *
 * <ul>
 *   <li>The header list size (each field's name and value lengths plus 32, as RFC 9113 section
 *       6.5.2 counts SETTINGS_MAX_HEADER_LIST_SIZE): once a block's fields exceed it, the sink
 *       hears no more of them and no further literal is materialised unless the dynamic table needs
 *       it; the rest of the block is still parsed, so the dynamic table stays in step with the
 *       peer's, and the block then fails as an error of its stream only. A small block that expands
 *       to a huge list (an HPACK bomb) costs no more than reading its bytes.
 *   <li>Dynamic table size updates: only before the block's first field, never above the
 *       SETTINGS_HEADER_TABLE_SIZE this side announced, and required after that setting shrank.
 *   <li>Integers fit in 31 bits; every length and index is checked against the block's end and the
 *       tables; decoded strings are at most 8/5 of their encoded length. Everything malformed is a
 *       {@link HpackException} with the reason, a COMPRESSION_ERROR of the connection.
 * </ul>
 *
 * <p>The dynamic table is made at the first insertion. One decoder per connection, used only on its
 * event loop; not thread-safe.
 */
public final class HpackDecoder {
  /** RFC 9113's initial SETTINGS_HEADER_TABLE_SIZE. */
  public static final long DEFAULT_HEADER_TABLE_SIZE = 4096;

  /** Stateless: one for every connection. */
  private static final HuffmanDecoder HUFFMAN = new HuffmanDecoder();

  private HpackDynamicTable table; // made at the first insertion
  private long headerTableSizeSetting; // SETTINGS_HEADER_TABLE_SIZE this side announced
  private long tableMaxSize; // what the peer's size updates set, at most the setting
  private boolean sizeUpdateRequired;
  private long maxHeaderListSize;

  // The block being decoded.
  private ByteBuf in;
  private int position;
  private int end;

  /**
   * @param maxHeaderListSize SETTINGS_MAX_HEADER_LIST_SIZE as this side announced it
   * @param headerTableSize SETTINGS_HEADER_TABLE_SIZE as this side announced it (the peer may use
   *     up to this much without telling)
   */
  public HpackDecoder(long maxHeaderListSize, long headerTableSize) {
    this.maxHeaderListSize = maxHeaderListSize;
    this.headerTableSizeSetting = headerTableSize;
    this.tableMaxSize = headerTableSize;
  }

  /** A new SETTINGS_MAX_HEADER_LIST_SIZE of this side. */
  public void setMaxHeaderListSize(long maxHeaderListSize) {
    this.maxHeaderListSize = maxHeaderListSize;
  }

  /**
   * A new SETTINGS_HEADER_TABLE_SIZE of this side, once the peer acknowledged it. If it is below
   * the size in use, the table shrinks now and the peer's next block must start with a size update
   * (RFC 7541 section 4.2).
   */
  public void setHeaderTableSize(long headerTableSize) {
    headerTableSizeSetting = headerTableSize;
    if (headerTableSize < tableMaxSize) {
      setTableMaxSize(headerTableSize);
      sizeUpdateRequired = true;
    }
  }

  /** The dynamic table, or null while nothing was inserted (for tests). */
  HpackDynamicTable dynamicTable() {
    return table;
  }

  /**
   * Decodes the readable bytes of {@code block}, a complete header block, and consumes them.
   *
   * @throws HpackException malformed input (a connection error), or a header list over the limit (a
   *     stream error, raised once the whole block has been read)
   */
  public void decode(ByteBuf block, HeaderSink sink) throws HpackException {
    in = block;
    position = block.readerIndex();
    end = block.writerIndex();
    try {
      decodeFields(sink);
      block.readerIndex(end);
    } finally {
      in = null;
    }
  }

  private void decodeFields(HeaderSink sink) throws HpackException {
    long listSize = 0;
    boolean overLimit = false;
    boolean fieldSeen = false;
    while (position < end) {
      int first = in.getByte(position) & 0xFF;
      if ((first & 0xE0) == 0x20) {
        if (fieldSeen) {
          throw HpackException.compression(
              "dynamic table size update after a header field (only allowed at a block's start)");
        }
        long size = readInteger(5);
        if (size > headerTableSizeSetting) {
          throw HpackException.compression(
              "dynamic table size update to "
                  + size
                  + " above SETTINGS_HEADER_TABLE_SIZE "
                  + headerTableSizeSetting);
        }
        setTableMaxSize(size);
        sizeUpdateRequired = false;
        continue;
      }
      if (sizeUpdateRequired) {
        throw HpackException.compression(
            "missing dynamic table size update after SETTINGS_HEADER_TABLE_SIZE shrank to "
                + headerTableSizeSetting);
      }
      fieldSeen = true;
      byte[] name;
      byte[] value;
      boolean sensitive = false;
      if (first >= 0x80) {
        int index = readInteger(7);
        if (index == 0) {
          throw HpackException.compression("indexed header field with index 0");
        }
        name = name(index);
        value = value(index);
      } else {
        boolean indexing = first >= 0x40;
        sensitive = !indexing && (first & 0x10) != 0;
        int nameIndex = readInteger(indexing ? 6 : 4);
        boolean materialise = indexing || !overLimit;
        name = nameIndex == 0 ? readString(materialise) : name(nameIndex);
        value = readString(materialise);
        if (indexing) {
          name = HpackCommonStrings.intern(name);
          value = HpackCommonStrings.intern(value);
          if (table == null) {
            table = new HpackDynamicTable(tableMaxSize);
          }
          table.add(name, value);
        }
      }
      if (!overLimit) {
        listSize += (long) name.length + value.length + HpackDynamicTable.ENTRY_OVERHEAD;
        if (listSize > maxHeaderListSize) {
          overLimit = true;
        } else {
          sink.header(name, value, sensitive);
        }
      }
    }
    if (overLimit) {
      throw HpackException.stream(
          "header list larger than SETTINGS_MAX_HEADER_LIST_SIZE " + maxHeaderListSize);
    }
  }

  private void setTableMaxSize(long size) {
    tableMaxSize = size;
    if (table != null) {
      table.setMaxSize(size);
    }
  }

  private byte[] name(int index) throws HpackException {
    return index <= HpackStaticTable.LENGTH
        ? HpackStaticTable.name(index)
        : table.name(checkDynamicIndex(index));
  }

  private byte[] value(int index) throws HpackException {
    return index <= HpackStaticTable.LENGTH
        ? HpackStaticTable.value(index)
        : table.value(checkDynamicIndex(index));
  }

  private int checkDynamicIndex(int index) throws HpackException {
    int dynamic = index - HpackStaticTable.LENGTH;
    int length = table == null ? 0 : table.length();
    if (dynamic > length) {
      throw HpackException.compression(
          "index "
              + index
              + " out of range (static table "
              + HpackStaticTable.LENGTH
              + ", dynamic table "
              + length
              + " entries)");
    }
    return dynamic;
  }

  /** A string literal (RFC 7541 section 5.2): skipped, returning null, unless materialised. */
  private byte[] readString(boolean materialise) throws HpackException {
    if (position == end) {
      throw HpackException.compression("truncated block: string literal missing");
    }
    boolean huffmanEncoded = (in.getByte(position) & 0x80) != 0;
    int length = readInteger(7);
    if (length > end - position) {
      throw HpackException.compression(
          "string length " + length + " beyond the block's end (" + (end - position) + " left)");
    }
    byte[] s = null;
    if (materialise) {
      if (huffmanEncoded) {
        s = HUFFMAN.decode(in, position, length);
      } else {
        s = new byte[length];
        in.getBytes(position, s);
      }
    }
    position += length;
    return s;
  }

  /** An integer with an N-bit prefix (RFC 7541 section 5.1), at most 2^31 - 1. */
  private int readInteger(int prefixBits) throws HpackException {
    int mask = (1 << prefixBits) - 1;
    int value = in.getByte(position++) & mask;
    if (value < mask) {
      return value;
    }
    long result = value;
    for (int shift = 0; ; shift += 7) {
      if (position == end) {
        throw HpackException.compression("truncated integer at the block's end");
      }
      int b = in.getByte(position++) & 0xFF;
      result += (long) (b & 0x7F) << shift;
      if (result > Integer.MAX_VALUE || shift > 28) {
        throw HpackException.compression("integer overflows 31 bits");
      }
      if ((b & 0x80) == 0) {
        return (int) result;
      }
    }
  }
}
