package dev.tern.netty.internal.server;

import dev.tern.Metadata;
import dev.tern.internal.wire.Base64Codec;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.internal.exchange.HttpRequestHeads;
import dev.tern.netty.internal.grpc.GrpcWire;
import dev.tern.netty.internal.http2.HeaderSink;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One request header block (or trailer block) on Tern's HTTP/2 engine, decoded straight into the
 * layout of {@link Metadata} and checked against RFC 9113 section 8 as its fields arrive.
 *
 * <p>The pseudo-headers and the fields the transport interprets ({@code content-type}, {@code te},
 * {@code content-length}) are kept as the decoder's byte arrays, apart from the metadata, and are
 * turned into Strings only where the call needs one (the method name, the authority). Values of
 * {@code -bin} fields are base64-decoded as they arrive.
 *
 * <p>A malformed block (section 8.1.1, 8.2, 8.3) is not refused mid-block, since HPACK must decode
 * the block to its end to stay in step with the peer: the first problem is kept ({@link
 * #malformed}) and later fields are ignored. The handler then resets the stream with
 * PROTOCOL_ERROR. The checks: field names are lower-case and hold no separator or control
 * character; values hold no NUL, CR or LF; pseudo-headers come before every regular field, are
 * known request pseudo-headers and are not repeated, and appear in no trailers; no
 * connection-specific field ({@code connection}, {@code keep-alive}, {@code proxy-connection},
 * {@code transfer-encoding}, {@code upgrade}); {@code te} is only {@code trailers}; {@code
 * content-length} is a decimal number; a request has a non-empty {@code :method}, {@code :scheme}
 * and {@code :path} ({@link #finishRequest}).
 *
 * <p>One per header block; event loop only, not thread-safe (the authority text shared by all of
 * them is, see {@link #authority}).
 */
public final class RequestHeaders implements HeaderSink {
  private static final byte[] BIN_SUFFIX =
      Metadata.BINARY_HEADER_SUFFIX.getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TRAILERS = ascii("trailers");
  private static final byte[][] CONNECTION_SPECIFIC = {
    ascii("connection"),
    ascii("keep-alive"),
    ascii("proxy-connection"),
    ascii("transfer-encoding"),
    ascii("upgrade")
  };

  private final boolean trailers;
  private byte[] method;
  private byte[] scheme;
  private byte[] path;
  private byte[] authority;
  private byte[] contentType;
  private long contentLength = -1;
  private boolean te;
  private boolean regularSeen;
  private String malformed;
  private String invalidBinaryHeader;
  private byte[][] namesAndValues = new byte[8][];
  private int entries;

  /**
   * @param trailers a trailer block: no pseudo-header may appear, and the fields are dropped (gRPC
   *     requests carry no trailers)
   */
  public RequestHeaders(boolean trailers) {
    this.trailers = trailers;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public void header(byte[] name, byte[] value, boolean sensitive) {
    if (malformed != null) {
      return;
    }
    if (!validValue(value)) {
      malformed = "value of '" + text(name) + "' has a NUL, CR or LF";
      return;
    }
    if (HeaderSink.isPseudoHeader(name)) {
      pseudoHeader(name, value);
      return;
    }
    regularSeen = true;
    if (!validName(name)) {
      malformed = "header name '" + text(name) + "' is not a lower-case token";
    } else if (isConnectionSpecific(name)) {
      malformed = "connection-specific header '" + text(name) + "'";
    } else if (trailers) {
      return;
    } else if (is(name, "te")) {
      if (!Arrays.equals(value, TRAILERS)) {
        malformed = "te other than 'trailers': '" + text(value) + "'";
      }
      te = true;
    } else if (is(name, "content-type")) {
      contentType = value;
    } else if (is(name, "content-length")) {
      contentLength(value);
    } else if (endsWithBin(name)) {
      addBinary(name, value);
    } else {
      append(name, value);
    }
  }

  private void pseudoHeader(byte[] name, byte[] value) {
    if (trailers) {
      malformed = "pseudo-header '" + text(name) + "' in trailers";
    } else if (regularSeen) {
      malformed = "pseudo-header '" + text(name) + "' after a regular header";
    } else if (is(name, ":path")) {
      path = once(path, name, value);
    } else if (is(name, ":method")) {
      method = once(method, name, value);
    } else if (is(name, ":scheme")) {
      scheme = once(scheme, name, value);
    } else if (is(name, ":authority")) {
      authority = once(authority, name, value);
    } else {
      malformed = "'" + text(name) + "' is not a request pseudo-header";
    }
  }

  private byte[] once(byte[] current, byte[] name, byte[] value) {
    if (current != null) {
      malformed = "duplicate pseudo-header '" + text(name) + "'";
    }
    return value;
  }

  private void contentLength(byte[] value) {
    long parsed = 0;
    for (byte b : value) {
      if (b < '0' || b > '9' || parsed > (Long.MAX_VALUE - 9) / 10) {
        malformed = "content-length is not a number: '" + text(value) + "'";
        return;
      }
      parsed = parsed * 10 + (b - '0');
    }
    if (value.length == 0 || (contentLength >= 0 && contentLength != parsed)) {
      malformed = "content-length '" + text(value) + "' is empty or differs from an earlier one";
      return;
    }
    contentLength = parsed;
  }

  /**
   * The block ended as a request's headers: checks the pseudo-headers every request needs (RFC 9113
   * section 8.3.1).
   */
  public void finishRequest() {
    if (malformed == null && (isEmpty(method) || isEmpty(scheme) || isEmpty(path))) {
      malformed = "missing or empty :method, :scheme or :path";
    }
  }

  /** Why the block is malformed (the stream is reset with PROTOCOL_ERROR), or null. */
  public String malformed() {
    return malformed;
  }

  /** A {@code -bin} value that was not valid base64 (the call fails), or null. */
  public String invalidBinaryHeader() {
    return invalidBinaryHeader;
  }

  public boolean isPost() {
    return is(method, "POST");
  }

  /** {@code :method}, as text; only for error descriptions. */
  public String methodText() {
    return text(method);
  }

  /** {@code :path} as a view of the decoder's bytes (no copy). */
  public AsciiString path() {
    return new AsciiString(path, false);
  }

  /** {@code content-type} as a view of the decoder's bytes, or null. */
  public AsciiString contentType() {
    return contentType == null ? null : new AsciiString(contentType, false);
  }

  /**
   * {@code :authority} as text, or null. The clients of a server send few authorities, so the text
   * last made is kept (one pair for the whole process) and returned again for the same bytes.
   */
  public String authority() {
    if (authority == null) {
      return null;
    }
    Authority last = lastAuthority;
    if (Arrays.equals(last.bytes(), authority)) {
      return last.text();
    }
    String text = text(authority);
    lastAuthority = new Authority(authority, text);
    return text;
  }

  /** An authority's bytes (never changed once decoded) and its text. Immutable. */
  private record Authority(byte[] bytes, String text) {}

  /** Racy by design: any event loop may replace it; a reader sees some complete pair. */
  private static volatile Authority lastAuthority = new Authority(new byte[0], "");

  /** The declared {@code content-length}, or -1. */
  public long contentLength() {
    return contentLength;
  }

  /**
   * The request's head for a protocol other than gRPC (regular fields as text, binary values in
   * base64 again); call before {@link #toMetadata}.
   */
  HttpRequestHead toHttpRequestHead() {
    List<Map.Entry<String, String>> fields = new ArrayList<>(entries + 3);
    if (contentType != null) {
      fields.add(Map.entry("content-type", text(contentType)));
    }
    if (te) {
      fields.add(Map.entry("te", "trailers"));
    }
    if (contentLength >= 0) {
      fields.add(Map.entry("content-length", Long.toString(contentLength)));
    }
    fields.addAll(GrpcWire.textEntries(namesAndValues, entries));
    return HttpRequestHeads.http2(text(method), text(path), authority(), text(scheme), fields);
  }

  /** The metadata, taking over the array; call once. */
  public Metadata toMetadata() {
    byte[][] array = namesAndValues;
    namesAndValues = null;
    return Metadata.fromSerialized(array, entries);
  }

  private void addBinary(byte[] name, byte[] value) {
    try {
      for (int i = 0; ; ) {
        int comma = indexOf(value, (byte) ',', i);
        int end = comma < 0 ? value.length : comma;
        append(name, Base64Codec.decodeBase64(value, i, end - i));
        if (comma < 0) {
          return;
        }
        i = comma + 1;
      }
    } catch (IllegalArgumentException e) {
      if (invalidBinaryHeader == null) {
        invalidBinaryHeader =
            "Invalid base64 in binary header " + text(name) + ": " + e.getMessage();
      }
    }
  }

  private void append(byte[] name, byte[] value) {
    int slot = entries * 2;
    if (slot + 2 > namesAndValues.length) {
      namesAndValues = Arrays.copyOf(namesAndValues, namesAndValues.length * 2);
    }
    namesAndValues[slot] = name;
    namesAndValues[slot + 1] = value;
    entries++;
  }

  private static int indexOf(byte[] array, byte b, int from) {
    for (int i = from; i < array.length; i++) {
      if (array[i] == b) {
        return i;
      }
    }
    return -1;
  }

  /** A field name (RFC 9110 token) in lower case: no upper case, separator or control byte. */
  private static boolean validName(byte[] name) {
    if (name.length == 0) {
      return false;
    }
    for (byte b : name) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z') || c <= 0x20 || c >= 0x7f || c == ':') {
        return false;
      }
    }
    return true;
  }

  private static boolean validValue(byte[] value) {
    for (byte b : value) {
      if (b == 0 || b == '\r' || b == '\n') {
        return false;
      }
    }
    return true;
  }

  private static boolean isConnectionSpecific(byte[] name) {
    for (byte[] banned : CONNECTION_SPECIFIC) {
      if (Arrays.equals(name, banned)) {
        return true;
      }
    }
    return false;
  }

  private static boolean endsWithBin(byte[] name) {
    int n = name.length - BIN_SUFFIX.length;
    return n >= 0 && Arrays.equals(name, n, name.length, BIN_SUFFIX, 0, BIN_SUFFIX.length);
  }

  private static boolean is(byte[] bytes, String ascii) {
    if (bytes == null || bytes.length != ascii.length()) {
      return false;
    }
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] != ascii.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isEmpty(byte[] bytes) {
    return bytes == null || bytes.length == 0;
  }

  private static String text(byte[] bytes) {
    return bytes == null ? "" : new String(bytes, StandardCharsets.ISO_8859_1);
  }
}
