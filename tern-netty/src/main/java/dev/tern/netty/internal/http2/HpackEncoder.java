package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Encodes header fields into HPACK (RFC 7541), for the headers gRPC sends.
 *
 * <p>A field is sent as an index when the static or dynamic table has it whole. Otherwise it is a
 * literal (its name by index when a table has the name) that is:
 *
 * <ul>
 *   <li>never indexed when sensitive: marked so by the caller, or {@code authorization}, {@code
 *       proxy-authorization}, {@code cookie} or {@code set-cookie};
 *   <li>indexed (added to the dynamic table) for the names whose values gRPC repeats call after
 *       call: {@code :authority}, {@code :path}, {@code content-type}, {@code te}, {@code
 *       user-agent}, {@code grpc-accept-encoding}, {@code grpc-encoding}, {@code accept-encoding},
 *       {@code grpc-status}; and {@code grpc-message} values of at most {@link
 *       #MAX_INDEXED_MESSAGE} bytes, since a server that refuses calls (overload, a deadline too
 *       short, a method not found) sends the same message again and again: as a literal it was most
 *       of a refusal's header block and of its cost (about 230 bytes, and 280,000 against 360,000
 *       refusals a second on one core with it indexed);
 *   <li>not indexed otherwise (a per-call value such as {@code grpc-timeout} or custom metadata
 *       would only push the repeating entries out).
 * </ul>
 *
 * <p>Strings are Huffman-encoded unless that is longer (as RFC 7541's examples do). The dynamic
 * table is at most 4096 bytes (less if the peer's SETTINGS_HEADER_TABLE_SIZE is smaller) and made
 * at the first insertion; a change of its size is signalled at the start of the next block.
 *
 * <p>A field whose name and value arrays are the very ones of a field written as a whole index
 * shortly before is written as that index again without a look-up, as long as the dynamic table has
 * not changed since (an insertion shifts its indexes), for the fields whose arrays the transport
 * makes: a channel's request fields ({@code :path}, {@code :authority}, {@code te}, {@code
 * content-type}) are the same arrays call after call, and the look-ups (the static table's hash,
 * the dynamic table's scan) were most of what encoding a request cost. See {@link #MEMO_SIZE}.
 *
 * <p>Use: {@link #beginBlock} once per header block, then {@link #header} for each field. One
 * encoder per connection, used only on its event loop; not thread-safe.
 */
public final class HpackEncoder {
  /** The most dynamic table this encoder uses, whatever the peer allows. */
  static final long MAX_TABLE_SIZE = 4096;

  private static final byte[][] INDEXED_NAMES =
      names(
          ":authority",
          ":path",
          "content-type",
          "te",
          "user-agent",
          "grpc-accept-encoding",
          "grpc-encoding",
          "accept-encoding",
          "grpc-status");
  private static final byte[] GRPC_MESSAGE = names("grpc-message")[0];

  /**
   * The longest {@code grpc-message} value indexed: a refusal's message fits with room to spare,
   * and a long one (a stack of causes) would take much of the table for a value unlikely to repeat.
   */
  static final int MAX_INDEXED_MESSAGE = 256;

  private static final byte[][] SENSITIVE_NAMES =
      names("authorization", "proxy-authorization", "cookie", "set-cookie");

  /**
   * How many fields written as an index are remembered by array identity at most: the request
   * fields of a channel calling a few methods. Looked through in order, which for so few is faster
   * than hashing the arrays.
   */
  static final int MEMO_SIZE = 16;

  /**
   * Besides the pseudo-headers, the fields remembered by identity: those whose arrays the transport
   * itself makes and never changes. An application's metadata is not remembered, since an
   * application may fill the same array anew for a later call (a {@code -bin} value is its own
   * array), and its index would then send the old bytes.
   */
  private static final byte[][] MEMO_NAMES = names("te", "content-type");

  /**
   * How many fields the memory holds when first made: a server's response fields (its {@code
   * :status} and {@code content-type}) with room to spare. It doubles, up to {@link #MEMO_SIZE},
   * when full: a client's request fields take eight. An idle server connection keeps the small one
   * (about 140 bytes less than sixteen).
   */
  static final int MEMO_INITIAL_SIZE = 4;

  /**
   * The remembered fields' arrays and indexes; {@link #memoCount} of them, replaced in turn once
   * the arrays are at {@link #MEMO_SIZE}. Made at the first field remembered.
   */
  private byte[][] memoNames;

  private byte[][] memoValues;
  private int[] memoIndexes;
  private int memoCount;
  private int memoNext;

  private final boolean huffman;
  private final boolean indexEverything;
  private HpackDynamicTable table; // made at the first insertion
  private long tableMaxSize;
  private boolean sizeUpdatePending;
  private long smallestPendingSize;

  /** An encoder for a peer that has not changed SETTINGS_HEADER_TABLE_SIZE from its default. */
  public HpackEncoder() {
    this(HpackDecoder.DEFAULT_HEADER_TABLE_SIZE, true, false);
  }

  /**
   * For tests: a table of {@code tableSize} already agreed with the peer (no size update sent),
   * Huffman or not, and every non-sensitive literal indexed, as RFC 7541's examples do.
   */
  HpackEncoder(long tableSize, boolean huffman, boolean indexEverything) {
    this.tableMaxSize = tableSize;
    this.huffman = huffman;
    this.indexEverything = indexEverything;
  }

  /**
   * The peer's SETTINGS_HEADER_TABLE_SIZE changed: the table is resized now (at most {@value
   * #MAX_TABLE_SIZE}), and the next block tells the peer, starting with the smallest size used in
   * between when it went down and up again (RFC 7541 section 4.2).
   */
  public void setPeerHeaderTableSize(long peerHeaderTableSize) {
    long size = Math.min(peerHeaderTableSize, MAX_TABLE_SIZE);
    if (size == tableMaxSize) {
      return;
    }
    smallestPendingSize = sizeUpdatePending ? Math.min(smallestPendingSize, size) : size;
    sizeUpdatePending = true;
    tableMaxSize = size;
    if (table != null) {
      table.setMaxSize(size);
    }
    forgetIndexes(); // a smaller table may have evicted remembered entries
  }

  /** Starts a header block: writes the pending dynamic table size updates, if any. */
  public void beginBlock(ByteBuf out) {
    if (sizeUpdatePending) {
      if (smallestPendingSize < tableMaxSize) {
        writeInteger(out, 0x20, 5, smallestPendingSize);
      }
      writeInteger(out, 0x20, 5, tableMaxSize);
      sizeUpdatePending = false;
    }
  }

  /**
   * Writes one header field. The arrays are read, never modified. Those of the pseudo-headers,
   * {@code te} and {@code content-type} must not be modified afterwards: such an array written
   * again is taken to hold what it held (see the class comment).
   *
   * @param sensitive never index it, here nor anywhere it is forwarded (RFC 7541 section 7.1.3)
   */
  public void header(ByteBuf out, byte[] name, byte[] value, boolean sensitive) {
    if (!sensitive) {
      for (int i = 0; i < memoCount; i++) {
        if (memoNames[i] == name && memoValues[i] == value) {
          writeInteger(out, 0x80, 7, memoIndexes[i]);
          return;
        }
      }
    }
    sensitive |= !indexEverything && contains(SENSITIVE_NAMES, name);
    int nameIndex = HpackStaticTable.nameIndex(name);
    if (!sensitive) {
      int index = HpackStaticTable.index(nameIndex, value);
      if (index != 0) {
        writeIndexed(out, name, value, index);
        return;
      }
    }
    if (table != null) {
      int found = table.find(name, value);
      if (found > 0 && !sensitive) {
        writeIndexed(out, name, value, HpackStaticTable.LENGTH + found);
        return;
      }
      if (nameIndex == 0 && found < 0) {
        nameIndex = HpackStaticTable.LENGTH - found;
      }
    }
    if (sensitive) {
      writeLiteral(out, 0x10, 4, nameIndex, name, value);
    } else if ((indexEverything || contains(INDEXED_NAMES, name) || isShortMessage(name, value))
        && (long) name.length + value.length + HpackDynamicTable.ENTRY_OVERHEAD <= tableMaxSize) {
      writeLiteral(out, 0x40, 6, nameIndex, name, value);
      if (table == null) {
        table = new HpackDynamicTable(tableMaxSize);
      }
      // Copies: the table outlives the call, whose arrays (an application's metadata) may be
      // filled anew for a later one, which must then not match this entry. The common gRPC
      // strings (content-type's value, grpc-status's name, ...) are shared arrays never written
      // to, so every connection's table holds references to the same ones instead.
      table.add(sharedOrCopy(name), sharedOrCopy(value));
      forgetIndexes(); // every dynamic index moved up by one (and the oldest may be gone)
    } else {
      writeLiteral(out, 0x00, 4, nameIndex, name, value);
    }
  }

  /**
   * Writes {@code index} for the field and, if the transport makes its arrays (see {@link
   * #MEMO_NAMES}), remembers it by their identity.
   */
  private void writeIndexed(ByteBuf out, byte[] name, byte[] value, int index) {
    writeInteger(out, 0x80, 7, index);
    if (!(name.length > 0 && name[0] == ':') && !contains(MEMO_NAMES, name)) {
      return;
    }
    if (memoIndexes == null) {
      memoNames = new byte[MEMO_INITIAL_SIZE][];
      memoValues = new byte[MEMO_INITIAL_SIZE][];
      memoIndexes = new int[MEMO_INITIAL_SIZE];
    } else if (memoNext == memoIndexes.length && memoNext < MEMO_SIZE) {
      memoNames = Arrays.copyOf(memoNames, 2 * memoNext);
      memoValues = Arrays.copyOf(memoValues, 2 * memoNext);
      memoIndexes = Arrays.copyOf(memoIndexes, 2 * memoNext);
    }
    int slot = memoNext == memoIndexes.length ? 0 : memoNext;
    memoNames[slot] = name;
    memoValues[slot] = value;
    memoIndexes[slot] = index;
    memoNext = slot + 1;
    memoCount = Math.max(memoCount, memoNext);
  }

  private void forgetIndexes() {
    if (memoNames != null) {
      Arrays.fill(memoNames, 0, memoCount, null);
      Arrays.fill(memoValues, 0, memoCount, null);
    }
    memoCount = 0;
    memoNext = 0;
  }

  /** The dynamic table, or null while nothing was inserted (for tests). */
  HpackDynamicTable dynamicTable() {
    return table;
  }

  private void writeLiteral(
      ByteBuf out, int pattern, int prefixBits, int nameIndex, byte[] name, byte[] value) {
    writeInteger(out, pattern, prefixBits, nameIndex);
    if (nameIndex == 0) {
      writeString(out, name);
    }
    writeString(out, value);
  }

  private void writeString(ByteBuf out, byte[] s) {
    if (huffman) {
      int encodedLength = HpackHuffman.encodedLength(s);
      if (encodedLength <= s.length) {
        writeInteger(out, 0x80, 7, encodedLength);
        HpackHuffman.encode(s, out);
        return;
      }
    }
    writeInteger(out, 0x00, 7, s.length);
    out.writeBytes(s);
  }

  /** An integer with an N-bit prefix (RFC 7541 section 5.1) in a byte starting with pattern. */
  static void writeInteger(ByteBuf out, int pattern, int prefixBits, long value) {
    int max = (1 << prefixBits) - 1;
    if (value < max) {
      out.writeByte(pattern | (int) value);
      return;
    }
    out.writeByte(pattern | max);
    value -= max;
    while (value >= 0x80) {
      out.writeByte((int) (value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out.writeByte((int) value);
  }

  private static byte[] sharedOrCopy(byte[] s) {
    byte[] shared = HpackCommonStrings.intern(s);
    return shared == s ? s.clone() : shared;
  }

  private static boolean isShortMessage(byte[] name, byte[] value) {
    return value.length <= MAX_INDEXED_MESSAGE && Arrays.equals(name, GRPC_MESSAGE);
  }

  private static boolean contains(byte[][] names, byte[] name) {
    for (byte[] n : names) {
      if (Arrays.equals(n, name)) {
        return true;
      }
    }
    return false;
  }

  /** The strings' ASCII bytes (also {@link HpackCommonStrings}'). */
  static byte[][] names(String... names) {
    byte[][] bytes = new byte[names.length][];
    for (int i = 0; i < names.length; i++) {
      bytes[i] = names[i].getBytes(StandardCharsets.US_ASCII);
    }
    return bytes;
  }
}
