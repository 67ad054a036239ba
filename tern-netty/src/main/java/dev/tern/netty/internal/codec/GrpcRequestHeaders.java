package dev.tern.netty.internal.codec;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;

/**
 * The headers of an inbound request (server side), as {@link GrpcHttp2HeadersDecoder} decodes them:
 * {@code :method}, {@code :scheme}, {@code :path}, {@code :authority}, {@code te} and {@code
 * content-type} are kept in fields for validation and routing; everything else (including {@code
 * grpc-timeout}, {@code grpc-encoding} and {@code user-agent}) becomes the call's metadata.
 *
 * <p>Not thread-safe: filled and read on one event loop.
 */
public final class GrpcRequestHeaders extends GrpcInboundHeaders {
  private CharSequence method;
  private CharSequence scheme;
  private CharSequence path;
  private CharSequence authority;
  private CharSequence te;
  private CharSequence contentType;

  GrpcRequestHeaders(int expectedHeaders) {
    super(expectedHeaders);
  }

  /**
   * Keeps a request pseudo-header. A second one of the same name, or one that is not a request
   * pseudo-header ({@code :status}, {@code :protocol}, an unknown name), makes the request
   * malformed (RFC 9113, section 8.3.1): the exception thrown here becomes a stream error
   * (RST_STREAM PROTOCOL_ERROR) in Netty's HPACK decoder, so the first value never loses silently
   * to a later one.
   */
  @Override
  boolean addPseudoHeader(AsciiString name, CharSequence value) {
    if (Http2Headers.PseudoHeaderName.PATH.value().contentEquals(name)) {
      path = once(path, name, value);
    } else if (Http2Headers.PseudoHeaderName.METHOD.value().contentEquals(name)) {
      method = once(method, name, value);
    } else if (Http2Headers.PseudoHeaderName.AUTHORITY.value().contentEquals(name)) {
      authority = once(authority, name, value);
    } else if (Http2Headers.PseudoHeaderName.SCHEME.value().contentEquals(name)) {
      scheme = once(scheme, name, value);
    } else {
      throw new IllegalArgumentException("'" + name + "' is not a request pseudo-header");
    }
    return true;
  }

  private static CharSequence once(CharSequence current, AsciiString name, CharSequence value) {
    if (current != null) {
      throw new IllegalArgumentException("duplicate pseudo-header '" + name + "'");
    }
    return value;
  }

  @Override
  boolean addReserved(AsciiString name, CharSequence value) {
    if (HttpHeaderNames.CONTENT_TYPE.contentEquals(name)) {
      contentType = value;
      return true;
    }
    if (HttpHeaderNames.TE.contentEquals(name)) {
      te = value;
      return true;
    }
    return false;
  }

  @Override
  CharSequence reserved(CharSequence name) {
    if (name.length() > 0 && name.charAt(0) == ':') {
      if (Http2Headers.PseudoHeaderName.PATH.value().contentEquals(name)) {
        return path;
      } else if (Http2Headers.PseudoHeaderName.METHOD.value().contentEquals(name)) {
        return method;
      } else if (Http2Headers.PseudoHeaderName.AUTHORITY.value().contentEquals(name)) {
        return authority;
      } else if (Http2Headers.PseudoHeaderName.SCHEME.value().contentEquals(name)) {
        return scheme;
      }
      return null;
    }
    if (HttpHeaderNames.CONTENT_TYPE.contentEqualsIgnoreCase(name)) {
      return contentType;
    }
    if (HttpHeaderNames.TE.contentEqualsIgnoreCase(name)) {
      return te;
    }
    return null;
  }

  @Override
  int reservedCount() {
    return count(method)
        + count(scheme)
        + count(path)
        + count(authority)
        + count(te)
        + count(contentType);
  }

  private static int count(CharSequence field) {
    return field == null ? 0 : 1;
  }

  @Override
  public CharSequence method() {
    return method;
  }

  @Override
  public CharSequence scheme() {
    return scheme;
  }

  @Override
  public CharSequence path() {
    return path;
  }

  @Override
  public CharSequence authority() {
    return authority;
  }

  @Override
  public CharSequence status() {
    return null;
  }

  /** The {@code content-type}, or null. */
  public CharSequence contentType() {
    return contentType;
  }

  /** The {@code te} header, or null. */
  public CharSequence te() {
    return te;
  }
}
