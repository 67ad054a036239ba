package dev.tern.netty.internal.codec;

import dev.tern.netty.internal.http2.Http2FrameException;
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

  /**
   * Whether {@code contentType} is one the server's gRPC path speaks: {@code application/grpc} or
   * {@code application/grpc+proto}, with or without parameters. Another codec ({@code +json},
   * {@code +foo}) would be misread as protobuf: such a request is offered to the protocols served
   * beside gRPC, or answered 415, as the gRPC protocol asks of a server that does not speak it.
   */
  public static boolean isServedGrpcContentType(CharSequence contentType) {
    if (!isGrpcContentType(contentType)) {
      return false;
    }
    int plus = GRPC_CONTENT_TYPE.length();
    if (contentType.length() == plus || contentType.charAt(plus) == ';') {
      return true;
    }
    int end = plus + 1;
    while (end < contentType.length() && contentType.charAt(end) != ';') {
      end++;
    }
    return AsciiString.contentEqualsIgnoreCase(
        contentType.subSequence(plus + 1, end).toString().trim(), "proto");
  }

  /** The name of an HTTP/2 error code, or its hex value if unknown. */
  public static String errorName(long errorCode) {
    return Http2FrameException.errorName(errorCode);
  }
}
