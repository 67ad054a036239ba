package dev.tern.netty.internal.codec;

import dev.tern.Metadata;
import dev.tern.internal.wire.Base64Codec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A call's request header block as the field array Tern's HTTP/2 engine encodes (names and values
 * alternating), built straight from {@link Metadata} with no header object in between: the
 * pseudo-headers, then {@code te}, {@code content-type}, {@code user-agent}, {@code grpc-timeout},
 * {@code grpc-encoding}, {@code grpc-accept-encoding}, then the custom metadata ({@code -bin}
 * values base64 without padding), the order {@link OutboundHeaders#request} gives Netty's codec.
 * Metadata bytes are shared, not copied; the engine never modifies them.
 *
 * <p>Stateless; thread-safe.
 */
public final class RequestFields {
  private static final byte[] METHOD = ascii(":method");
  private static final byte[] SCHEME = ascii(":scheme");
  private static final byte[] PATH = ascii(":path");
  private static final byte[] AUTHORITY = ascii(":authority");
  private static final byte[] POST = ascii("POST");
  private static final byte[] TE = ascii("te");
  private static final byte[] TRAILERS = ascii("trailers");
  private static final byte[] CONTENT_TYPE = ascii("content-type");
  private static final byte[] GRPC = ascii(OutboundHeaders.CONTENT_TYPE_GRPC.toString());
  private static final byte[] BIN_SUFFIX = ascii(Metadata.BINARY_HEADER_SUFFIX);

  private RequestFields() {}

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The fields of a request; {@code headers} is read, not kept.
   *
   * @param userAgent the {@code user-agent} value, or null for none
   */
  public static byte[][] of(
      byte[] scheme, byte[] path, byte[] authority, byte[] userAgent, Metadata headers) {
    byte[][] md = headers.toSerialized();
    int count = headers.headerCount();
    byte[][] fields = new byte[2 * (7 + count)][];
    int n = 0;
    n = put(fields, n, METHOD, POST);
    n = put(fields, n, SCHEME, scheme);
    n = put(fields, n, PATH, path);
    n = put(fields, n, AUTHORITY, authority);
    n = put(fields, n, TE, TRAILERS);
    n = put(fields, n, CONTENT_TYPE, GRPC);
    if (userAgent != null) {
      n = put(fields, n, OutboundHeaders.USER_AGENT_BYTES, userAgent);
    }
    n = putNamed(fields, n, md, count, OutboundHeaders.TIMEOUT_BYTES);
    n = putNamed(fields, n, md, count, OutboundHeaders.ENCODING_BYTES);
    n = putNamed(fields, n, md, count, OutboundHeaders.ACCEPT_ENCODING_BYTES);
    for (int i = 0; i < count; i++) {
      byte[] name = md[2 * i];
      if (OutboundHeaders.isTransportOwned(name)
          || Arrays.equals(name, OutboundHeaders.USER_AGENT_BYTES)
          || Arrays.equals(name, OutboundHeaders.TIMEOUT_BYTES)
          || Arrays.equals(name, OutboundHeaders.ENCODING_BYTES)
          || Arrays.equals(name, OutboundHeaders.ACCEPT_ENCODING_BYTES)) {
        continue;
      }
      byte[] value = md[2 * i + 1];
      n = put(fields, n, name, isBinary(name) ? Base64Codec.encodeBase64NoPadding(value) : value);
    }
    return n == fields.length ? fields : Arrays.copyOf(fields, n);
  }

  private static int putNamed(byte[][] fields, int n, byte[][] md, int count, byte[] name) {
    for (int i = 0; i < count; i++) {
      if (Arrays.equals(md[2 * i], name)) {
        n = put(fields, n, name, md[2 * i + 1]);
      }
    }
    return n;
  }

  private static int put(byte[][] fields, int n, byte[] name, byte[] value) {
    fields[n] = name;
    fields[n + 1] = value;
    return n + 2;
  }

  private static boolean isBinary(byte[] name) {
    int start = name.length - BIN_SUFFIX.length;
    return start >= 0 && Arrays.equals(name, start, name.length, BIN_SUFFIX, 0, BIN_SUFFIX.length);
  }
}
