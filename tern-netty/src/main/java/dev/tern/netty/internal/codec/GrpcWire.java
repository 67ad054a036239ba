package dev.tern.netty.internal.codec;

import io.netty.handler.codec.http2.Http2Error;
import io.netty.util.AsciiString;

/**
 * What client and server read off HTTP/2 the same way: whether a {@code content-type} is gRPC's,
 * and the name of an HTTP/2 error code for a status description.
 *
 * <p>Stateless; thread-safe.
 */
public final class GrpcWire {
  private static final AsciiString GRPC_CONTENT_TYPE = AsciiString.cached("application/grpc");

  private GrpcWire() {}

  /** The length of {@code application/grpc}, where a {@code +codec} or parameters begin. */
  public static int grpcContentTypeLength() {
    return GRPC_CONTENT_TYPE.length();
  }

  /**
   * Whether {@code contentType} is {@code application/grpc}, optionally {@code +suffix} or params.
   */
  public static boolean isGrpcContentType(CharSequence contentType) {
    if (contentType == null || contentType.length() < GRPC_CONTENT_TYPE.length()) {
      return false;
    }
    AsciiString ct = AsciiString.of(contentType).toLowerCase();
    if (!ct.startsWith(GRPC_CONTENT_TYPE)) {
      return false;
    }
    if (ct.length() == GRPC_CONTENT_TYPE.length()) {
      return true;
    }
    char next = ct.charAt(GRPC_CONTENT_TYPE.length());
    return next == '+' || next == ';';
  }

  /** The name of an HTTP/2 error code, or its hex value if unknown. */
  public static String errorName(long errorCode) {
    Http2Error error = Http2Error.valueOf(errorCode);
    return error == null ? "0x" + Long.toHexString(errorCode) : error.name();
  }
}
