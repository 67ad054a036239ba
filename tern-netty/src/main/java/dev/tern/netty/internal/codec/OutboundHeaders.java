package dev.tern.netty.internal.codec;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.Base64Codec;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.GrpcMessageCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.ReadOnlyHttp2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * Builds outbound HTTP/2 header blocks from {@link Metadata}, in the order the gRPC wire protocol
 * gives: pseudo-headers, then {@code te}, {@code content-type}, {@code user-agent}, {@code
 * grpc-timeout}, {@code grpc-encoding}, {@code grpc-accept-encoding}, then custom metadata ({@code
 * -bin} values base64 without padding). Constant names and values are {@link AsciiString}s encoded
 * once; metadata bytes are wrapped, not copied. Blocks are built on the application thread, so the
 * event loop only encodes them. Every block is Netty's flat, read-only {@link ReadOnlyHttp2Headers}
 * (an array, not a hash table), and the server's most common ones (headers without metadata or with
 * the one same entry, OK trailers) are built once and shared.
 *
 * <p>Thread-safe: the only state is the shared one-entry response cache, replaced whole.
 */
public final class OutboundHeaders {
  private OutboundHeaders() {}

  static final AsciiString POST = AsciiString.cached("POST");
  static final AsciiString CONTENT_TYPE = HttpHeaderNames.CONTENT_TYPE;
  public static final AsciiString HTTP = AsciiString.cached("http");
  public static final AsciiString HTTPS = AsciiString.cached("https");
  static final AsciiString TE_TRAILERS = AsciiString.cached("trailers");
  static final AsciiString CONTENT_TYPE_GRPC = AsciiString.cached(GrpcHeaders.CONTENT_TYPE_GRPC);
  static final AsciiString CONTENT_TYPE_TEXT = AsciiString.cached("text/plain; charset=utf-8");
  static final AsciiString STATUS_OK = AsciiString.cached("200");
  static final AsciiString GRPC_STATUS = AsciiString.cached(GrpcHeaders.STATUS.name());
  static final AsciiString GRPC_MESSAGE = AsciiString.cached(GrpcHeaders.MESSAGE.name());
  static final AsciiString GRPC_TIMEOUT = AsciiString.cached(GrpcHeaders.TIMEOUT.name());
  static final AsciiString GRPC_ENCODING = AsciiString.cached(GrpcHeaders.MESSAGE_ENCODING.name());
  static final AsciiString GRPC_ACCEPT_ENCODING =
      AsciiString.cached(GrpcHeaders.MESSAGE_ACCEPT_ENCODING.name());

  /** {@code grpc-status} values 0..16, encoded once. */
  private static final AsciiString[] STATUS_CODES = new AsciiString[17];

  static {
    for (int i = 0; i < STATUS_CODES.length; i++) {
      STATUS_CODES[i] = AsciiString.cached(Integer.toString(i));
    }
  }

  static final byte[] USER_AGENT_BYTES = bytes(GrpcHeaders.USER_AGENT.name());
  private static final byte[] CONTENT_TYPE_BYTES = bytes(GrpcHeaders.CONTENT_TYPE.name());
  private static final byte[] TE_BYTES = bytes("te");
  static final byte[] TIMEOUT_BYTES = bytes(GrpcHeaders.TIMEOUT.name());
  static final byte[] ENCODING_BYTES = bytes(GrpcHeaders.MESSAGE_ENCODING.name());
  static final byte[] ACCEPT_ENCODING_BYTES = bytes(GrpcHeaders.MESSAGE_ACCEPT_ENCODING.name());
  private static final byte[] STATUS_BYTES = bytes(GrpcHeaders.STATUS.name());
  private static final byte[] MESSAGE_BYTES = bytes(GrpcHeaders.MESSAGE.name());

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** The request HEADERS of a call, read-only. {@code headers} is read, not kept. */
  public static Http2Headers request(
      AsciiString scheme,
      AsciiString path,
      AsciiString authority,
      AsciiString userAgent,
      Metadata headers) {
    byte[][] md = headers.toSerialized();
    int count = headers.headerCount();
    FlatBlock block = new FlatBlock(3 + count);
    block.add(HttpHeaderNames.TE, TE_TRAILERS);
    block.add(CONTENT_TYPE, CONTENT_TYPE_GRPC);
    if (userAgent != null) {
      block.add(HttpHeaderNames.USER_AGENT, userAgent);
    }
    // The reserved headers first, in the wire protocol's order.
    block.addNamed(md, count, TIMEOUT_BYTES, GRPC_TIMEOUT);
    block.addNamed(md, count, ENCODING_BYTES, GRPC_ENCODING);
    block.addNamed(md, count, ACCEPT_ENCODING_BYTES, GRPC_ACCEPT_ENCODING);
    for (int i = 0; i < count; i++) {
      byte[] name = md[2 * i];
      if (isTransportOwned(name)
          || equal(name, USER_AGENT_BYTES)
          || equal(name, TIMEOUT_BYTES)
          || equal(name, ENCODING_BYTES)
          || equal(name, ACCEPT_ENCODING_BYTES)) {
        continue;
      }
      block.addEntry(name, md[2 * i + 1]);
    }
    return ReadOnlyHttp2Headers.clientHeaders(
        false, POST, path, scheme, authority, block.toArray());
  }

  /** The response HEADERS of a call whose headers carry no metadata. */
  private static final Http2Headers RESPONSE_PLAIN =
      ReadOnlyHttp2Headers.serverHeaders(false, STATUS_OK, CONTENT_TYPE, CONTENT_TYPE_GRPC);

  /** The trailers of a call that ended OK without trailing metadata after response headers. */
  private static final Http2Headers TRAILERS_OK =
      ReadOnlyHttp2Headers.trailers(false, GRPC_STATUS, STATUS_CODES[0]);

  /**
   * The response HEADERS last built for metadata of one entry (in practice the server's {@code
   * grpc-accept-encoding}, which every call sends): most calls of a server send the same block, so
   * it is shared instead of rebuilt. Racy by design: any thread may replace it, and a reader sees
   * some complete holder.
   */
  private static volatile OneEntryResponse lastOneEntryResponse = new OneEntryResponse(null, null);

  /** A response block and the one metadata entry it was built from. Immutable. */
  private record OneEntryResponse(byte[][] entry, Http2Headers headers) {
    boolean matches(byte[] name, byte[] value) {
      return entry != null && equal(entry[0], name) && equal(entry[1], value);
    }
  }

  /**
   * The response HEADERS: {@code :status 200}, content-type, then {@code headers}. The block is
   * read-only, and may be shared by calls that send the same headers.
   */
  public static Http2Headers response(Metadata headers) {
    int count = headers.headerCount();
    if (count == 0) {
      return RESPONSE_PLAIN;
    }
    byte[][] md = headers.toSerialized();
    if (count == 1) {
      OneEntryResponse last = lastOneEntryResponse;
      if (last.matches(md[0], md[1])) {
        return last.headers();
      }
      Http2Headers built = buildResponse(md, count);
      lastOneEntryResponse = new OneEntryResponse(new byte[][] {md[0], md[1]}, built);
      return built;
    }
    return buildResponse(md, count);
  }

  private static Http2Headers buildResponse(byte[][] md, int count) {
    FlatBlock block = new FlatBlock(1 + count);
    block.add(CONTENT_TYPE, CONTENT_TYPE_GRPC);
    block.addCustom(md, count);
    return ReadOnlyHttp2Headers.serverHeaders(false, STATUS_OK, block.toArray());
  }

  /**
   * The trailers ending a call; with {@code trailersOnly} (no response headers were sent) the one
   * HEADERS frame also carries {@code :status 200} and content-type. The block is read-only, and
   * may be shared.
   */
  public static Http2Headers trailers(Status status, Metadata trailers, boolean trailersOnly) {
    int count = trailers.headerCount();
    if (count == 0 && !trailersOnly && status.isOk() && status.getDescription() == null) {
      return TRAILERS_OK;
    }
    byte[][] md = trailers.toSerialized();
    FlatBlock block = new FlatBlock(3 + count);
    if (trailersOnly) {
      block.add(CONTENT_TYPE, CONTENT_TYPE_GRPC);
    }
    block.addStatus(status);
    block.addCustom(md, count);
    return trailersOnly
        ? ReadOnlyHttp2Headers.serverHeaders(false, STATUS_OK, block.toArray())
        : ReadOnlyHttp2Headers.trailers(false, block.toArray());
  }

  /** Regular headers collected as name, value, name, value... for a read-only block. */
  private static final class FlatBlock {
    private final AsciiString[] entries;
    private int size;

    FlatBlock(int maxEntries) {
      entries = new AsciiString[2 * maxEntries];
    }

    void add(AsciiString name, AsciiString value) {
      entries[size++] = name;
      entries[size++] = value;
    }

    /** {@code grpc-status}, and {@code grpc-message} if the status has a description. */
    void addStatus(Status status) {
      add(GRPC_STATUS, STATUS_CODES[status.getCode().value()]);
      String description = status.getDescription();
      if (description != null) {
        add(GRPC_MESSAGE, new AsciiString(GrpcMessageCodec.encode(description)));
      }
    }

    void addCustom(byte[][] md, int count) {
      for (int i = 0; i < count; i++) {
        byte[] name = md[2 * i];
        if (!isTransportOwned(name)) {
          addEntry(name, md[2 * i + 1]);
        }
      }
    }

    /** Every value of the reserved {@code name}, under its constant. */
    void addNamed(byte[][] md, int count, byte[] name, AsciiString asciiName) {
      for (int i = 0; i < count; i++) {
        if (equal(md[2 * i], name)) {
          add(asciiName, new AsciiString(md[2 * i + 1], false));
        }
      }
    }

    /** One metadata entry; a {@code -bin} value goes out as base64 without padding. */
    void addEntry(byte[] name, byte[] value) {
      AsciiString asciiName = knownName(name);
      add(
          asciiName,
          asciiName.endsWith(Metadata.BINARY_HEADER_SUFFIX)
              ? new AsciiString(Base64Codec.encodeBase64NoPadding(value), false)
              : new AsciiString(value, false));
    }

    AsciiString[] toArray() {
      return size == entries.length ? entries : java.util.Arrays.copyOf(entries, size);
    }
  }

  /** A reserved name's constant, or {@code name} wrapped. */
  private static AsciiString knownName(byte[] name) {
    if (equal(name, ACCEPT_ENCODING_BYTES)) {
      return GRPC_ACCEPT_ENCODING;
    }
    if (equal(name, ENCODING_BYTES)) {
      return GRPC_ENCODING;
    }
    return new AsciiString(name, false);
  }

  /** An HTTP error answer to a request that is not valid gRPC: HTTP status plus gRPC status. */
  public static Http2Headers httpError(int httpStatus, Status status) {
    return httpErrorBlock(httpStatus, CONTENT_TYPE_GRPC, status);
  }

  /**
   * The headers of an HTTP error answer to a request that is not gRPC: {@code :status}, a {@code
   * text/plain} content-type for the body that follows, and the gRPC status.
   */
  public static Http2Headers httpErrorWithBody(int httpStatus, Status status) {
    return httpErrorBlock(httpStatus, CONTENT_TYPE_TEXT, status);
  }

  private static Http2Headers httpErrorBlock(int httpStatus, AsciiString type, Status status) {
    FlatBlock block = new FlatBlock(3);
    block.add(CONTENT_TYPE, type);
    block.addStatus(status);
    return ReadOnlyHttp2Headers.serverHeaders(
        false, AsciiString.of(Integer.toString(httpStatus)), block.toArray());
  }

  /** Names the transport writes itself; metadata must not duplicate or forge them. */
  static boolean isTransportOwned(byte[] name) {
    return (name.length > 0 && name[0] == ':')
        || equal(name, CONTENT_TYPE_BYTES)
        || equal(name, TE_BYTES)
        || equal(name, STATUS_BYTES)
        || equal(name, MESSAGE_BYTES);
  }

  private static boolean equal(byte[] a, byte[] b) {
    return java.util.Arrays.equals(a, b);
  }
}
