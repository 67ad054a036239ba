package dev.tern.netty.internal.codec;

import dev.tern.internal.wire.GrpcHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;

/**
 * The headers or trailers of an inbound response (client side), as {@link GrpcHttp2HeadersDecoder}
 * decodes them: {@code :status}, {@code content-type}, {@code grpc-status} and {@code grpc-message}
 * are kept in fields, which the client reads to decide how the call ends; everything else becomes
 * the call's response metadata or trailers.
 *
 * <p>Not thread-safe: filled and read on one event loop.
 */
public final class GrpcResponseHeaders extends GrpcInboundHeaders {
  private static final AsciiString GRPC_STATUS = AsciiString.cached(GrpcHeaders.STATUS.name());
  private static final AsciiString GRPC_MESSAGE = AsciiString.cached(GrpcHeaders.MESSAGE.name());

  private CharSequence status;
  private CharSequence contentType;
  private CharSequence grpcStatus;
  private CharSequence grpcMessage;

  GrpcResponseHeaders(int expectedHeaders) {
    super(expectedHeaders);
  }

  /**
   * An empty holder for a block that Tern's HTTP/2 engine decodes (the client on the engine fills
   * it through {@link #add}, field by field).
   */
  public static GrpcResponseHeaders create() {
    return new GrpcResponseHeaders(4);
  }

  /**
   * Empties the holder for the next block Tern's HTTP/2 engine decodes into it (the client on the
   * engine keeps one per connection): the metadata {@link #toMetadata} handed out stays the
   * caller's.
   */
  public void reset() {
    clearEntries();
    status = null;
    contentType = null;
    grpcStatus = null;
    grpcMessage = null;
  }

  @Override
  boolean addPseudoHeader(AsciiString name, CharSequence value) {
    if (Http2Headers.PseudoHeaderName.STATUS.value().contentEquals(name)) {
      status = value;
      return true;
    }
    return false;
  }

  @Override
  boolean addReserved(AsciiString name, CharSequence value) {
    if (GRPC_STATUS.contentEquals(name)) {
      grpcStatus = value;
    } else if (GRPC_MESSAGE.contentEquals(name)) {
      grpcMessage = value;
    } else if (HttpHeaderNames.CONTENT_TYPE.contentEquals(name)) {
      contentType = value;
    } else {
      return false;
    }
    return true;
  }

  @Override
  CharSequence reserved(CharSequence name) {
    if (Http2Headers.PseudoHeaderName.STATUS.value().contentEquals(name)) {
      return status;
    } else if (GRPC_STATUS.contentEqualsIgnoreCase(name)) {
      return grpcStatus;
    } else if (GRPC_MESSAGE.contentEqualsIgnoreCase(name)) {
      return grpcMessage;
    } else if (HttpHeaderNames.CONTENT_TYPE.contentEqualsIgnoreCase(name)) {
      return contentType;
    }
    return null;
  }

  @Override
  int reservedCount() {
    return (status == null ? 0 : 1)
        + (contentType == null ? 0 : 1)
        + (grpcStatus == null ? 0 : 1)
        + (grpcMessage == null ? 0 : 1);
  }

  @Override
  public CharSequence status() {
    return status;
  }

  @Override
  public CharSequence method() {
    return null;
  }

  @Override
  public CharSequence scheme() {
    return null;
  }

  @Override
  public CharSequence path() {
    return null;
  }

  @Override
  public CharSequence authority() {
    return null;
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
}
