package dev.tern.netty.internal.codec;

import dev.tern.Metadata;
import dev.tern.internal.wire.Base64Codec;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Inbound HTTP/2 headers decoded straight into the layout of {@link Metadata}: names and values as
 * {@code byte[]} in one growable {@code byte[][]} (name at {@code 2i}, value at {@code 2i+1}), so
 * {@link #toMetadata()} hands the array over without copying. Appending is O(1) amortized; values
 * of {@code -bin} headers are base64-decoded as they arrive (padded or not; a comma-separated value
 * becomes one entry per element). Pseudo-headers and the headers the transport itself interprets
 * are kept in fields by the subclasses and never reach the metadata.
 *
 * <p>Values Netty hands over may be views into a larger array (an {@link AsciiString} with an
 * offset): exactly the bytes of the value are copied then; a string that spans its whole array is
 * shared, as HPACK never modifies a decoded string.
 *
 * <p>Not thread-safe: filled and read on one event loop.
 */
public abstract class GrpcInboundHeaders extends AppendOnlyHttp2Headers {
  private static final byte[] BIN_SUFFIX =
      Metadata.BINARY_HEADER_SUFFIX.getBytes(StandardCharsets.US_ASCII);

  /** Made at the first metadata entry: most trailers carry none (only {@code grpc-status}). */
  private byte[][] namesAndValues;

  private final int initialSlots;
  private int entries;

  /** A {@code -bin} value that was not valid base64, or null; the transport fails the call. */
  private String invalidBinaryHeader;

  /**
   * @param expectedHeaders Netty's guess from earlier blocks, which counts the pseudo-headers and
   *     reserved headers kept apart from the metadata too: room for at most four entries is made at
   *     the first entry (most requests carry fewer), and more grow the array
   */
  GrpcInboundHeaders(int expectedHeaders) {
    initialSlots = Math.max(2, Math.min(expectedHeaders, 4)) * 2;
  }

  /**
   * Keeps a pseudo-header (name starts with ':') apart from the metadata.
   *
   * @return false if the name is not one this holder knows (it is then dropped)
   * @throws IllegalArgumentException if the pseudo-header makes the block malformed (Netty's HPACK
   *     decoder turns it into a stream error)
   */
  abstract boolean addPseudoHeader(AsciiString name, CharSequence value);

  /** Returns true if the subclass keeps {@code name} in a field instead of the metadata. */
  abstract boolean addReserved(AsciiString name, CharSequence value);

  /** The stored value of a pseudo or reserved header, or null. */
  abstract CharSequence reserved(CharSequence name);

  /** The number of pseudo and reserved headers stored in fields. */
  abstract int reservedCount();

  @Override
  public Http2Headers add(CharSequence name, CharSequence value) {
    AsciiString asciiName = AsciiString.of(name);
    checkValue(asciiName, value);
    if (asciiName.length() > 0 && asciiName.byteAt(0) == ':') {
      addPseudoHeader(asciiName, value);
      return this;
    }
    checkName(asciiName);
    if (addReserved(asciiName, value)) {
      return this;
    }
    byte[] nameBytes = bytes(asciiName);
    if (endsWithBin(nameBytes)) {
      addBinary(nameBytes, value);
    } else {
      append(nameBytes, bytes(value));
    }
    return this;
  }

  /**
   * Replaces every value of {@code name} with {@code value}. Netty's connection decoder calls it
   * once per request that carries {@code content-length} (h2load, curl and nghttp send one), to
   * store the normalized length; nothing else sets headers on an inbound holder.
   */
  @Override
  public Http2Headers setLong(CharSequence name, long value) {
    AsciiString asciiName = AsciiString.of(name);
    if (asciiName.length() > 0 && asciiName.byteAt(0) == ':') {
      throw unsupported("setLong on a pseudo-header");
    }
    byte[] nameBytes = bytes(asciiName);
    if (holdsOnly(nameBytes, value)) {
      return this; // already the normalized value: the usual case, kept without new objects
    }
    removeEntries(nameBytes);
    return add(asciiName, AsciiString.of(Long.toString(value)));
  }

  /** Whether {@code name} has exactly one entry, {@code value} in decimal without leading zeros. */
  private boolean holdsOnly(byte[] name, long value) {
    byte[] found = null;
    for (int i = 0; i < entries; i++) {
      if (Arrays.equals(namesAndValues[2 * i], name)) {
        if (found != null) {
          return false;
        }
        found = namesAndValues[2 * i + 1];
      }
    }
    if (found == null || found.length == 0 || value < 0 || (found[0] == '0' && found.length > 1)) {
      return false;
    }
    long parsed = 0;
    for (byte b : found) {
      if (b < '0' || b > '9' || parsed > (Long.MAX_VALUE - 9) / 10) {
        return false;
      }
      parsed = parsed * 10 + (b - '0');
    }
    return parsed == value;
  }

  /** Drops the metadata entries named {@code name}, keeping the others in order. */
  private void removeEntries(byte[] name) {
    int kept = 0;
    for (int i = 0; i < entries; i++) {
      if (!Arrays.equals(namesAndValues[2 * i], name)) {
        namesAndValues[2 * kept] = namesAndValues[2 * i];
        namesAndValues[2 * kept + 1] = namesAndValues[2 * i + 1];
        kept++;
      }
    }
    if (kept < entries) {
      Arrays.fill(namesAndValues, 2 * kept, 2 * entries, null);
    }
    entries = kept;
  }

  /**
   * HTTP/2 header names are lower-case tokens; anything else makes the request malformed. Netty's
   * HPACK decoder turns this exception into a stream error (RST_STREAM PROTOCOL_ERROR).
   */
  private static void checkName(AsciiString name) {
    if (name.isEmpty()) {
      throw new IllegalArgumentException("empty header name");
    }
    for (int i = 0; i < name.length(); i++) {
      int b = name.byteAt(i) & 0xff;
      if ((b >= 'A' && b <= 'Z') || b <= 0x20 || b >= 0x7f || b == ':') {
        throw new IllegalArgumentException(
            "header name '" + name + "' has an invalid character at index " + i);
      }
    }
  }

  /**
   * A field value with NUL, CR or LF makes the message malformed (RFC 9113, section 8.2.1): such a
   * value must never reach the metadata, where an application could pass it on (into a log line or
   * an HTTP/1.1 request). Netty's HPACK decoder turns this exception into a stream error
   * (RST_STREAM PROTOCOL_ERROR).
   */
  private static void checkValue(AsciiString name, CharSequence value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == 0 || c == '\r' || c == '\n') {
        throw new IllegalArgumentException(
            "value of header '" + name + "' has a NUL, CR or LF at index " + i);
      }
    }
  }

  private void addBinary(byte[] name, CharSequence value) {
    AsciiString ascii = AsciiString.of(value);
    byte[] array = ascii.array();
    int start = ascii.arrayOffset();
    int end = start + ascii.length();
    try {
      for (int i = start; ; ) {
        int comma = indexOf(array, (byte) ',', i, end);
        int elementEnd = comma < 0 ? end : comma;
        append(name, Base64Codec.decodeBase64(array, i, elementEnd - i));
        if (comma < 0) {
          break;
        }
        i = comma + 1;
      }
    } catch (IllegalArgumentException e) {
      if (invalidBinaryHeader == null) {
        invalidBinaryHeader =
            "Invalid base64 in binary header "
                + new String(name, StandardCharsets.US_ASCII)
                + ": "
                + e.getMessage();
      }
    }
  }

  private static int indexOf(byte[] array, byte b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (array[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private void append(byte[] name, byte[] value) {
    int slot = entries * 2;
    if (namesAndValues == null) {
      namesAndValues = new byte[initialSlots][];
    } else if (slot + 2 > namesAndValues.length) {
      namesAndValues = Arrays.copyOf(namesAndValues, namesAndValues.length * 2);
    }
    namesAndValues[slot] = name;
    namesAndValues[slot + 1] = value;
    entries++;
  }

  private static boolean endsWithBin(byte[] name) {
    int n = name.length - BIN_SUFFIX.length;
    if (n < 0) {
      return false;
    }
    for (int i = 0; i < BIN_SUFFIX.length; i++) {
      if (name[n + i] != BIN_SUFFIX[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The bytes of {@code s}: the backing array itself when an {@link AsciiString} spans all of it,
   * otherwise a copy of exactly its range (never the rest of a shared array).
   */
  public static byte[] bytes(CharSequence s) {
    if (s instanceof AsciiString) {
      AsciiString a = (AsciiString) s;
      return a.isEntireArrayUsed() ? a.array() : a.toByteArray();
    }
    return s.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Forgets every entry and the invalid {@code -bin} value, for the next block. */
  void clearEntries() {
    namesAndValues = null;
    entries = 0;
    invalidBinaryHeader = null;
  }

  /**
   * The custom metadata, taking over the backing array (no copy). Call once, after decoding; the
   * holder must not be used afterwards (except through a subclass's reset).
   */
  public Metadata toMetadata() {
    byte[][] array = namesAndValues;
    namesAndValues = null;
    return array == null ? new Metadata() : Metadata.fromSerialized(array, entries);
  }

  /**
   * The metadata entries as text, in order (binary values base64-encoded again, unpadded), for a
   * protocol that is not gRPC; call before {@link #toMetadata}.
   */
  public List<Map.Entry<String, String>> textEntries() {
    return textEntries(namesAndValues, entries);
  }

  /**
   * The first {@code entries} names and values of a metadata array ({@link
   * Metadata#fromSerialized}'s layout, binary values decoded) as text, as {@link #textEntries()}.
   */
  public static List<Map.Entry<String, String>> textEntries(byte[][] namesAndValues, int entries) {
    List<Map.Entry<String, String>> out = new ArrayList<>(entries);
    for (int i = 0; i < entries; i++) {
      byte[] name = namesAndValues[2 * i];
      byte[] value = namesAndValues[2 * i + 1];
      String text =
          endsWithBin(name)
              ? new String(Base64Codec.encodeBase64NoPadding(value), StandardCharsets.US_ASCII)
              : new String(value, StandardCharsets.ISO_8859_1); // as HTTP/1.1's decoder reads them
      out.add(Map.entry(new String(name, StandardCharsets.US_ASCII), text));
    }
    return out;
  }

  /** Why a {@code -bin} value was rejected, or null if every one decoded. */
  public String invalidBinaryHeader() {
    return invalidBinaryHeader;
  }

  /** The number of metadata entries (not counting pseudo and reserved headers). */
  public int metadataCount() {
    return entries;
  }

  @Override
  public CharSequence get(CharSequence name) {
    CharSequence special = reserved(name);
    if (special != null) {
      return special;
    }
    for (int i = 0; i < entries; i++) {
      if (sameName(namesAndValues[2 * i], name)) {
        return new AsciiString(namesAndValues[2 * i + 1], false);
      }
    }
    return null;
  }

  /** Whether {@code name} (as stored, lower case) spells {@code other}; allocates nothing. */
  private static boolean sameName(byte[] name, CharSequence other) {
    if (name.length != other.length()) {
      return false;
    }
    for (int i = 0; i < name.length; i++) {
      if ((char) (name[i] & 0xff) != other.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public CharSequence get(CharSequence name, CharSequence defaultValue) {
    CharSequence value = get(name);
    return value != null ? value : defaultValue;
  }

  @Override
  public List<CharSequence> getAll(CharSequence name) {
    CharSequence special = reserved(name);
    if (special != null) {
      return Collections.singletonList(special);
    }
    List<CharSequence> values = null;
    for (int i = 0; i < entries; i++) {
      if (sameName(namesAndValues[2 * i], name)) {
        AsciiString value = new AsciiString(namesAndValues[2 * i + 1], false);
        if (values == null) {
          values = Collections.singletonList(value); // content-length: one value
        } else {
          if (values.size() == 1) {
            values = new ArrayList<>(values);
          }
          values.add(value);
        }
      }
    }
    // Netty's decoder asks for content-length on every request; most have none.
    return values != null ? values : Collections.emptyList();
  }

  @Override
  public boolean contains(CharSequence name) {
    return get(name) != null;
  }

  @Override
  public int size() {
    return entries + reservedCount();
  }

  @Override
  public boolean isEmpty() {
    return size() == 0;
  }

  /**
   * The metadata entries (binary values shown decoded), each made as it is reached: Netty's decoder
   * walks the headers of every request until the first one that is not a pseudo-header, which here
   * is the first.
   */
  @Override
  public Iterator<Map.Entry<CharSequence, CharSequence>> iterator() {
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < entries;
      }

      @Override
      public Map.Entry<CharSequence, CharSequence> next() {
        if (next >= entries) {
          throw new NoSuchElementException();
        }
        int i = next++;
        return new AbstractMap.SimpleImmutableEntry<>(
            new AsciiString(namesAndValues[2 * i], false),
            new AsciiString(namesAndValues[2 * i + 1], false));
      }
    };
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(getClass().getSimpleName()).append('[');
    for (int i = 0; i < entries; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(new String(namesAndValues[2 * i], StandardCharsets.US_ASCII)).append(": ...");
    }
    return sb.append(']').toString();
  }
}
