package dev.tern;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Headers or trailers of a call: an insertion-ordered multimap from header name to values.
 *
 * <p>Keys whose name ends in {@value #BINARY_HEADER_SUFFIX} carry arbitrary bytes (sent base64 on
 * the wire); all other keys carry printable ASCII (0x20..0x7E). Names are lower-case {@code
 * [0-9a-z_.-]}. The {@code grpc-} prefix is reserved for the protocol: Tern's runtime uses such
 * keys itself, and application metadata should not.
 *
 * <p><b>Not thread-safe.</b> A {@code Metadata} is owned by one thread at a time; passing it to a
 * call (for example as headers to start a call, or as trailers to close one) hands it over, and the
 * caller must not touch it afterwards.
 *
 * <p>Entries are stored as a flat array {@code byte[][]} with the name of entry {@code i} at {@code
 * 2i} and its value at {@code 2i+1}, so transports can hand over decoded headers without copying
 * (see {@link #fromSerialized}). Byte arrays are not copied on the way in or out: do not modify an
 * array after putting it, or one obtained from {@link #get}.
 */
public final class Metadata {
  /** Binary values in {@link #toString()}: the unpadded form gRPC itself sends. */
  private static final Base64.Encoder BASE64_NO_PADDING = Base64.getEncoder().withoutPadding();

  /** Names of keys that carry arbitrary bytes end with this suffix. */
  public static final String BINARY_HEADER_SUFFIX = "-bin";

  /**
   * Marshals printable-ASCII strings unchanged. {@link AsciiMarshaller#toAsciiString} rejects
   * characters outside 0x20..0x7E with an {@link IllegalArgumentException}.
   */
  public static final AsciiMarshaller<String> ASCII_STRING_MARSHALLER = new AsciiStringMarshaller();

  /** Marshals byte arrays unchanged (no copy). */
  public static final BinaryMarshaller<byte[]> BINARY_BYTE_MARSHALLER = new ByteArrayMarshaller();

  /** Room for 4 entries: most calls carry only a few custom headers. */
  private static final int INITIAL_SLOTS = 8;

  /** Names at even indexes, values at odd ones; slots at and beyond {@code 2 * size} are null. */
  private byte[][] namesAndValues;

  /** Number of entries (name-value pairs). */
  private int size;

  /** Creates empty metadata. Allocates nothing until the first {@link #put}. */
  public Metadata() {}

  private Metadata(byte[][] namesAndValues, int size) {
    this.namesAndValues = namesAndValues;
    this.size = size;
  }

  /**
   * For transport implementations: wraps decoded headers, <b>taking ownership</b> of the array (it
   * is not copied; the caller must not use it afterwards).
   *
   * @param namesAndValues name of entry {@code i} at {@code 2i}, value at {@code 2i+1}; names are
   *     lower-case ASCII bytes; values of {@code -bin} keys are raw (already base64-decoded) bytes,
   *     other values their ASCII bytes. Slots beyond {@code 2 * headerCount} are ignored and may be
   *     overwritten.
   * @param headerCount number of entries in use
   * @throws IllegalArgumentException if {@code headerCount} is negative or the array is too short
   */
  public static Metadata fromSerialized(byte[][] namesAndValues, int headerCount) {
    Objects.requireNonNull(namesAndValues, "namesAndValues");
    if (headerCount < 0 || headerCount > namesAndValues.length / 2) {
      throw new IllegalArgumentException(
          "headerCount "
              + headerCount
              + " does not fit in namesAndValues of length "
              + namesAndValues.length);
    }
    return new Metadata(namesAndValues, headerCount);
  }

  /**
   * For transport implementations: the entries in the form {@link #fromSerialized} accepts, as a
   * new array of exactly {@code 2 * headerCount()} elements. Binary values are raw bytes; the
   * transport base64-encodes them. The inner arrays are shared, not copied: do not modify them.
   */
  public byte[][] toSerialized() {
    byte[][] result = new byte[size * 2][];
    if (size > 0) {
      System.arraycopy(namesAndValues, 0, result, 0, size * 2);
    }
    return result;
  }

  /** Number of entries (a name with three values counts three). */
  public int headerCount() {
    return size;
  }

  /** Whether at least one value is stored under {@code key}. */
  public boolean containsKey(Key<?> key) {
    Objects.requireNonNull(key, "key");
    return indexOf(key.asciiName(), 0) >= 0;
  }

  /** The last value stored under {@code key}, or null if there is none. */
  public <T> T get(Key<T> key) {
    Objects.requireNonNull(key, "key");
    byte[] name = key.asciiName();
    for (int i = size - 1; i >= 0; i--) {
      if (Arrays.equals(name, namesAndValues[2 * i])) {
        return key.parseBytes(namesAndValues[2 * i + 1]);
      }
    }
    return null;
  }

  /**
   * All values stored under {@code key}, in insertion order, or null if there are none. The result
   * is a snapshot: later changes to this metadata do not affect it.
   */
  public <T> Iterable<T> getAll(Key<T> key) {
    Objects.requireNonNull(key, "key");
    byte[] name = key.asciiName();
    List<T> values = null;
    for (int i = 0; i < size; i++) {
      if (Arrays.equals(name, namesAndValues[2 * i])) {
        if (values == null) {
          values = new ArrayList<>(2);
        }
        values.add(key.parseBytes(namesAndValues[2 * i + 1]));
      }
    }
    return values == null ? null : Collections.unmodifiableList(values);
  }

  /** The distinct names present, in order of first appearance, as a new unmodifiable set. */
  public Set<String> keys() {
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < size; i++) {
      names.add(new String(namesAndValues[2 * i], StandardCharsets.US_ASCII));
    }
    return Collections.unmodifiableSet(names);
  }

  /**
   * Appends {@code value} under {@code key}, after any existing values.
   *
   * @throws NullPointerException if {@code key} or {@code value} is null
   * @throws IllegalArgumentException if {@code key} is an ASCII key and the marshalled value has a
   *     character outside printable ASCII (0x20..0x7E)
   */
  public <T> void put(Key<T> key, T value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    byte[] serialized = key.toBytes(value);
    if (serialized == null) { // not requireNonNull: its message would be built on every put
      throw new NullPointerException("marshaller returned null for key " + key.name());
    }
    append(key.asciiName(), serialized);
  }

  /**
   * Removes the first value under {@code key} that equals {@code value} (compared after parsing,
   * with {@link Object#equals}; byte arrays by content).
   *
   * @return whether a value was removed
   */
  public <T> boolean remove(Key<T> key, T value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    byte[] name = key.asciiName();
    for (int i = 0; i < size; i++) {
      if (Arrays.equals(name, namesAndValues[2 * i])) {
        T stored = key.parseBytes(namesAndValues[2 * i + 1]);
        if (Objects.deepEquals(stored, value)) {
          int tailSlots = (size - i - 1) * 2;
          System.arraycopy(namesAndValues, 2 * i + 2, namesAndValues, 2 * i, tailSlots);
          size--;
          namesAndValues[2 * size] = null;
          namesAndValues[2 * size + 1] = null;
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Removes every value under {@code key}.
   *
   * @return the removed values in insertion order, or null if there were none
   */
  public <T> Iterable<T> removeAll(Key<T> key) {
    Objects.requireNonNull(key, "key");
    byte[] name = key.asciiName();
    List<T> removed = null;
    int kept = 0;
    for (int i = 0; i < size; i++) {
      byte[] entryName = namesAndValues[2 * i];
      byte[] entryValue = namesAndValues[2 * i + 1];
      if (Arrays.equals(name, entryName)) {
        if (removed == null) {
          removed = new ArrayList<>(2);
        }
        removed.add(key.parseBytes(entryValue));
      } else {
        namesAndValues[2 * kept] = entryName;
        namesAndValues[2 * kept + 1] = entryValue;
        kept++;
      }
    }
    truncate(kept);
    return removed;
  }

  /** Removes every value under {@code key} without returning them; allocates nothing. */
  public <T> void discardAll(Key<T> key) {
    Objects.requireNonNull(key, "key");
    byte[] name = key.asciiName();
    int first = indexOf(name, 0);
    if (first < 0) {
      return;
    }
    int kept = first;
    for (int i = first + 1; i < size; i++) {
      if (!Arrays.equals(name, namesAndValues[2 * i])) {
        namesAndValues[2 * kept] = namesAndValues[2 * i];
        namesAndValues[2 * kept + 1] = namesAndValues[2 * i + 1];
        kept++;
      }
    }
    truncate(kept);
  }

  /** Appends every entry of {@code other}, in order, after this metadata's entries. */
  public void merge(Metadata other) {
    Objects.requireNonNull(other, "other");
    if (other.size == 0) {
      return;
    }
    int otherSlots = other.size * 2;
    if (namesAndValues == null) {
      // Often all this metadata will hold (a call's headers made from a template): exact size.
      namesAndValues = new byte[otherSlots][];
    } else {
      ensureCapacity(size + other.size);
    }
    System.arraycopy(other.namesAndValues, 0, namesAndValues, size * 2, otherSlots);
    size += other.size;
  }

  /**
   * Appends the entries of {@code other} whose key is in {@code keys}, keeping their relative
   * order.
   */
  public void merge(Metadata other, Set<Key<?>> keys) {
    Objects.requireNonNull(other, "other");
    Objects.requireNonNull(keys, "keys");
    // Snapshot the count so merging metadata into itself terminates.
    int otherSize = other.size;
    for (int i = 0; i < otherSize; i++) {
      byte[] entryName = other.namesAndValues[2 * i];
      for (Key<?> key : keys) {
        if (Arrays.equals(key.asciiName(), entryName)) {
          append(entryName, other.namesAndValues[2 * i + 1]);
          break;
        }
      }
    }
  }

  /** Entries in order, e.g. {@code Metadata(a=x,b-bin=AQI)}; binary values as unpadded base64. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("Metadata(");
    for (int i = 0; i < size; i++) {
      if (i > 0) {
        sb.append(',');
      }
      String name = new String(namesAndValues[2 * i], StandardCharsets.US_ASCII);
      byte[] value = namesAndValues[2 * i + 1];
      sb.append(name).append('=');
      if (name.endsWith(BINARY_HEADER_SUFFIX)) {
        sb.append(BASE64_NO_PADDING.encodeToString(value));
      } else {
        sb.append(new String(value, StandardCharsets.US_ASCII));
      }
    }
    return sb.append(')').toString();
  }

  private int indexOf(byte[] name, int from) {
    for (int i = from; i < size; i++) {
      if (Arrays.equals(name, namesAndValues[2 * i])) {
        return i;
      }
    }
    return -1;
  }

  private void append(byte[] name, byte[] value) {
    ensureCapacity(size + 1);
    namesAndValues[2 * size] = name;
    namesAndValues[2 * size + 1] = value;
    size++;
  }

  private void ensureCapacity(int entries) {
    int slots = entries * 2;
    if (namesAndValues == null) {
      namesAndValues = new byte[Math.max(INITIAL_SLOTS, slots)][];
    } else if (namesAndValues.length < slots) {
      namesAndValues = Arrays.copyOf(namesAndValues, Math.max(namesAndValues.length * 2, slots));
    }
  }

  /**
   * Shrinks to {@code newSize} entries, clearing freed slots so removed values can be collected.
   */
  private void truncate(int newSize) {
    if (newSize < size) {
      Arrays.fill(namesAndValues, newSize * 2, size * 2, null);
      size = newSize;
    }
  }

  /**
   * Converts values to and from the printable-ASCII form of an ASCII key.
   *
   * @param <T> the value type
   */
  public interface AsciiMarshaller<T> {
    /** Serializes {@code value}; the result must contain only characters 0x20..0x7E. */
    String toAsciiString(T value);

    /** Parses a value received from the peer. */
    T parseAsciiString(String serialized);
  }

  /**
   * Converts values to and from the bytes of a binary ({@code -bin}) key.
   *
   * @param <T> the value type
   */
  public interface BinaryMarshaller<T> {
    /** Serializes {@code value}. */
    byte[] toBytes(T value);

    /** Parses a value received from the peer. */
    T parseBytes(byte[] serialized);
  }

  /**
   * A typed metadata key: a validated header name plus the marshaller for its values.
   *
   * <p>Names are lower-cased and must be non-empty, use only {@code [0-9a-z_.-]} and not start with
   * {@code ':'} (pseudo-headers are not metadata). Keys for binary values end in {@value
   * #BINARY_HEADER_SUFFIX}; ASCII keys must not. Keys are equal when their names are equal. Create
   * keys once and keep them in constants.
   *
   * <p>Immutable; thread-safe.
   *
   * @param <T> the value type
   */
  public abstract static class Key<T> {
    private final String originalName;
    private final String name;
    private final byte[] asciiName;

    private Key(String originalName) {
      this.originalName = Objects.requireNonNull(originalName, "name");
      this.name = validateName(originalName);
      this.asciiName = name.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A key whose values are printable ASCII.
     *
     * @throws IllegalArgumentException if the name is invalid or ends in {@value
     *     #BINARY_HEADER_SUFFIX}
     */
    public static <T> Key<T> of(String name, AsciiMarshaller<T> marshaller) {
      return new AsciiKey<>(name, marshaller);
    }

    /**
     * A key whose values are arbitrary bytes.
     *
     * @throws IllegalArgumentException if the name is invalid or does not end in {@value
     *     #BINARY_HEADER_SUFFIX}
     */
    public static <T> Key<T> of(String name, BinaryMarshaller<T> marshaller) {
      return new BinaryKey<>(name, marshaller);
    }

    /** The header name, lower-cased. */
    public final String name() {
      return name;
    }

    /** The name exactly as given to {@code of}. */
    public final String originalName() {
      return originalName;
    }

    /**
     * For transport implementations: {@link #name()} as ASCII bytes. Cached and shared: do not
     * modify.
     */
    public final byte[] asciiName() {
      return asciiName;
    }

    abstract byte[] toBytes(T value);

    abstract T parseBytes(byte[] serialized);

    @Override
    public final boolean equals(Object o) {
      return o instanceof Key && name.equals(((Key<?>) o).name);
    }

    @Override
    public final int hashCode() {
      return name.hashCode();
    }

    @Override
    public String toString() {
      return "Key{name='" + name + "'}";
    }

    private static String validateName(String originalName) {
      if (originalName.isEmpty()) {
        throw new IllegalArgumentException("metadata key name must not be empty");
      }
      if (originalName.charAt(0) == ':') {
        throw new IllegalArgumentException(
            "metadata key '" + originalName + "' must not start with ':' (pseudo-header)");
      }
      String lower = originalName.toLowerCase(Locale.ROOT);
      for (int i = 0; i < lower.length(); i++) {
        char c = lower.charAt(i);
        boolean valid =
            (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        if (!valid) {
          throw new IllegalArgumentException(
              "metadata key '"
                  + originalName
                  + "' has invalid character '"
                  + originalName.charAt(i)
                  + "' (U+"
                  + String.format(Locale.ROOT, "%04X", (int) originalName.charAt(i))
                  + ") at index "
                  + i
                  + "; allowed: 0-9 a-z _ . -");
        }
      }
      return lower;
    }
  }

  private static final class AsciiKey<T> extends Key<T> {
    private final AsciiMarshaller<T> marshaller;

    AsciiKey(String name, AsciiMarshaller<T> marshaller) {
      super(name);
      this.marshaller = Objects.requireNonNull(marshaller, "marshaller");
      if (name().endsWith(BINARY_HEADER_SUFFIX)) {
        throw new IllegalArgumentException(
            "ASCII metadata key '"
                + name
                + "' must not end in "
                + BINARY_HEADER_SUFFIX
                + "; use a BinaryMarshaller");
      }
    }

    @Override
    byte[] toBytes(T value) {
      String ascii = marshaller.toAsciiString(value);
      if (ascii == null) {
        throw new NullPointerException("marshaller returned null for key " + name());
      }
      if (marshaller != ASCII_STRING_MARSHALLER) { // it validated already
        checkPrintableAscii(ascii);
      }
      // Validated printable ASCII: Latin-1 encoding is a straight char-to-byte copy.
      return ascii.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Override
    T parseBytes(byte[] serialized) {
      return marshaller.parseAsciiString(new String(serialized, StandardCharsets.US_ASCII));
    }
  }

  private static final class BinaryKey<T> extends Key<T> {
    private final BinaryMarshaller<T> marshaller;

    BinaryKey(String name, BinaryMarshaller<T> marshaller) {
      super(name);
      this.marshaller = Objects.requireNonNull(marshaller, "marshaller");
      if (!name().endsWith(BINARY_HEADER_SUFFIX)) {
        throw new IllegalArgumentException(
            "binary metadata key '" + name + "' must end in " + BINARY_HEADER_SUFFIX);
      }
    }

    @Override
    byte[] toBytes(T value) {
      return marshaller.toBytes(value);
    }

    @Override
    T parseBytes(byte[] serialized) {
      return marshaller.parseBytes(serialized);
    }
  }

  private static void checkPrintableAscii(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7E) {
        throw new IllegalArgumentException(
            "metadata value has character U+"
                + String.format(Locale.ROOT, "%04X", (int) c)
                + " at index "
                + i
                + "; ASCII metadata values must be printable ASCII (0x20..0x7E)");
      }
    }
  }

  private static final class AsciiStringMarshaller implements AsciiMarshaller<String> {
    @Override
    public String toAsciiString(String value) {
      checkPrintableAscii(value);
      return value;
    }

    @Override
    public String parseAsciiString(String serialized) {
      return serialized;
    }

    @Override
    public String toString() {
      return "ASCII_STRING_MARSHALLER";
    }
  }

  private static final class ByteArrayMarshaller implements BinaryMarshaller<byte[]> {
    @Override
    public byte[] toBytes(byte[] value) {
      return value;
    }

    @Override
    public byte[] parseBytes(byte[] serialized) {
      return serialized;
    }

    @Override
    public String toString() {
      return "BINARY_BYTE_MARSHALLER";
    }
  }
}
