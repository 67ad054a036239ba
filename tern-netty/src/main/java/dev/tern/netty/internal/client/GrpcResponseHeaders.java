package dev.tern.netty.internal.client;

import dev.tern.Metadata;
import dev.tern.internal.wire.Base64Codec;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.internal.grpc.GrpcWire;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The headers or trailers of an inbound response (client side), as the HTTP/2 engine decodes them
 * field by field: {@code :status}, {@code content-type}, {@code grpc-status} and {@code
 * grpc-message} are kept in fields, which the client reads to decide how the call ends; everything
 * else is decoded straight into the layout of {@link Metadata}: names and values as {@code byte[]}
 * in one growable {@code byte[][]} (name at {@code 2i}, value at {@code 2i+1}), so {@link
 * #toMetadata()} hands the array over without copying. Values of {@code -bin} headers are
 * base64-decoded as they arrive (padded or not; a comma-separated value becomes one entry per
 * element).
 *
 * <p>The decoder's arrays are kept as they come ({@link #add(byte[], byte[])}), as HPACK and QPACK
 * never modify a decoded string; only the reserved fields' values are wrapped as text, each array
 * once while the decoder keeps handing out the same one. Fields given as text ({@link
 * #add(AsciiString, CharSequence)}) may be views into a larger array: exactly the bytes of the
 * value are copied then.
 *
 * <p>Not thread-safe: filled and read on one event loop.
 */
public final class GrpcResponseHeaders {
  private static final byte[] STATUS = ascii(":status");
  private static final byte[] CONTENT_TYPE = ascii("content-type");
  private static final byte[] GRPC_STATUS = ascii(GrpcHeaders.STATUS.name());
  private static final byte[] GRPC_MESSAGE = ascii(GrpcHeaders.MESSAGE.name());
  private static final byte[] ALT_SVC = ascii("alt-svc");

  private static final int STATUS_FIELD = 0;
  private static final int CONTENT_TYPE_FIELD = 1;
  private static final int GRPC_STATUS_FIELD = 2;
  private static final int GRPC_MESSAGE_FIELD = 3;
  private static final int RESERVED_FIELDS = 4;

  /** Longer reserved values (a long {@code grpc-message}) are rare and not worth keeping alive. */
  private static final int MAX_KEPT_VALUE = 64;

  /** Room for four entries at the first one: most responses carry fewer. */
  private static final int INITIAL_SLOTS = 8;

  /** Made at the first metadata entry: most trailers carry none (only {@code grpc-status}). */
  private byte[][] namesAndValues;

  /**
   * Per reserved field ({@link #STATUS_FIELD}...), the last value array wrapped and its wrapper:
   * the decoder hands out the same array of its static or dynamic table block after block ({@code
   * :status: 200}, {@code content-type: application/grpc}, {@code grpc-status: 0}), so each is
   * wrapped once per connection. Arrays longer than {@value #MAX_KEPT_VALUE} bytes are not kept.
   */
  private final byte[][] lastValues = new byte[RESERVED_FIELDS][];

  private final AsciiString[] lastTexts = new AsciiString[RESERVED_FIELDS];

  private int entries;

  /** A {@code -bin} value that was not valid base64, or null; the transport fails the call. */
  private String invalidBinaryHeader;

  private CharSequence status;
  private CharSequence contentType;
  private CharSequence grpcStatus;
  private CharSequence grpcMessage;

  /** The {@code alt-svc} field (also kept in the metadata), or null; fields joined by commas. */
  private String altSvc;

  private GrpcResponseHeaders() {}

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * An empty holder, which the client's connection fills field by field ({@link #add}); one per
   * connection, reset for each block.
   */
  public static GrpcResponseHeaders create() {
    return new GrpcResponseHeaders();
  }

  /**
   * Empties the holder for the next block (the client keeps one per connection): the metadata
   * {@link #toMetadata} handed out stays the caller's.
   */
  public void reset() {
    namesAndValues = null;
    entries = 0;
    invalidBinaryHeader = null;
    status = null;
    contentType = null;
    grpcStatus = null;
    grpcMessage = null;
    altSvc = null;
  }

  /**
   * Adds one decoded field given as text, as {@link #add(byte[], byte[])} does with exactly its
   * bytes (a view into a larger array is copied; a string spanning its whole array is not).
   *
   * @throws IllegalArgumentException if the field makes the block malformed
   */
  public void add(AsciiString name, CharSequence value) {
    add(GrpcWire.bytes(name), GrpcWire.bytes(value));
  }

  /**
   * Adds one decoded field: a pseudo-header or a reserved header into its field (an unknown
   * pseudo-header is dropped), anything else into the metadata. The arrays are kept, not copied
   * (HPACK and QPACK never modify a decoded string), and only the reserved fields' values are
   * wrapped as text: the metadata takes the arrays as they are, so a response's other fields (a
   * proxy's or a web server's {@code server}, {@code date}, {@code content-length}, which come as
   * new arrays every response) cost no wrapper.
   *
   * @throws IllegalArgumentException if the field makes the block malformed
   */
  public void add(byte[] name, byte[] value) {
    checkValue(name, value);
    if (name.length > 0 && name[0] == ':') {
      if (Arrays.equals(STATUS, name)) {
        status = text(STATUS_FIELD, value);
      }
      return;
    }
    checkName(name);
    if (Arrays.equals(GRPC_STATUS, name)) {
      grpcStatus = text(GRPC_STATUS_FIELD, value);
    } else if (Arrays.equals(GRPC_MESSAGE, name)) {
      grpcMessage = text(GRPC_MESSAGE_FIELD, value);
    } else if (Arrays.equals(CONTENT_TYPE, name)) {
      contentType = text(CONTENT_TYPE_FIELD, value);
    } else {
      if (Arrays.equals(ALT_SVC, name)) {
        String text = new String(value, StandardCharsets.ISO_8859_1);
        altSvc = altSvc == null ? text : altSvc + ", " + text;
      }
      if (GrpcWire.isBinaryName(name)) {
        addBinary(name, value);
      } else {
        append(name, value);
      }
    }
  }

  /**
   * HTTP/2 header names are lower-case tokens; anything else makes the request malformed. The
   * connection fails the call with INTERNAL.
   */
  private static void checkName(byte[] name) {
    if (name.length == 0) {
      throw new IllegalArgumentException("empty header name");
    }
    for (int i = 0; i < name.length; i++) {
      int b = name[i] & 0xff;
      if ((b >= 'A' && b <= 'Z') || b <= 0x20 || b >= 0x7f || b == ':') {
        throw new IllegalArgumentException(
            "header name '" + text(name) + "' has an invalid character at index " + i);
      }
    }
  }

  /**
   * A field value with NUL, CR or LF makes the message malformed (RFC 9113, section 8.2.1): such a
   * value must never reach the metadata, where an application could pass it on (into a log line or
   * an HTTP/1.1 request). The connection fails the call with INTERNAL.
   */
  private static void checkValue(byte[] name, byte[] value) {
    for (int i = 0; i < value.length; i++) {
      byte c = value[i];
      if (c == 0 || c == '\r' || c == '\n') {
        throw new IllegalArgumentException(
            "value of header '" + text(name) + "' has a NUL, CR or LF at index " + i);
      }
    }
  }

  /** {@code value} of the reserved {@code field} as text, wrapped once while it repeats. */
  private AsciiString text(int field, byte[] value) {
    if (lastValues[field] == value) {
      return lastTexts[field];
    }
    AsciiString text = new AsciiString(value, false);
    if (value.length <= MAX_KEPT_VALUE) {
      lastValues[field] = value;
      lastTexts[field] = text;
    }
    return text;
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  private void addBinary(byte[] name, byte[] array) {
    int end = array.length;
    try {
      for (int i = 0; ; ) {
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
      namesAndValues = new byte[INITIAL_SLOTS][];
    } else if (slot + 2 > namesAndValues.length) {
      namesAndValues = Arrays.copyOf(namesAndValues, namesAndValues.length * 2);
    }
    namesAndValues[slot] = name;
    namesAndValues[slot + 1] = value;
    entries++;
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

  /** Why a {@code -bin} value was rejected, or null if every one decoded. */
  public String invalidBinaryHeader() {
    return invalidBinaryHeader;
  }

  /** The number of metadata entries (not counting pseudo and reserved headers). */
  public int metadataCount() {
    return entries;
  }

  /** The {@code :status}, or null. */
  public CharSequence status() {
    return status;
  }

  /** The {@code content-type}, or null. */
  public CharSequence contentType() {
    return contentType;
  }

  /** The {@code grpc-status}, or null. */
  public CharSequence grpcStatus() {
    return grpcStatus;
  }

  /** The {@code grpc-message} (still percent-encoded), or null. */
  public CharSequence grpcMessage() {
    return grpcMessage;
  }

  /** The {@code alt-svc} field's value (several fields joined by commas), or null. */
  public String altSvc() {
    return altSvc;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("GrpcResponseHeaders[");
    for (int i = 0; i < entries; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(new String(namesAndValues[2 * i], StandardCharsets.US_ASCII)).append(": ...");
    }
    return sb.append(']').toString();
  }
}
