package dev.tern.netty.internal.server;

import dev.tern.Status;
import dev.tern.netty.internal.grpc.GrpcWire;

/**
 * How a server answers a well-formed request it will not start a gRPC call for, the same on HTTP/2
 * and HTTP/3: a method other than POST (405) or a content-type gRPC does not speak (415), each with
 * a short text body; a {@code :path} that is not {@code /Service/Method} (404, UNIMPLEMENTED); a
 * {@code -bin} header that is not base64 (400, INTERNAL). Immutable.
 *
 * @param httpStatus the {@code :status} of the answer
 * @param status the {@code grpc-status} and {@code grpc-message} it carries
 * @param textBody whether a {@code text/plain} body repeats the reason (for non-gRPC clients)
 */
public record RequestRefusal(int httpStatus, Status status, boolean textBody) {
  /** The answer to {@code request} if it cannot be a gRPC call, or null if it can. */
  public static RequestRefusal of(RequestHeaders request) {
    return of(request, request.contentType(), request.path());
  }

  /**
   * As {@link #of(RequestHeaders)}, with the request's {@code content-type} and {@code :path} views
   * the caller already made (the HTTP/2 server's per-call path makes each once).
   */
  public static RequestRefusal of(
      RequestHeaders request, CharSequence contentType, CharSequence path) {
    if (!request.isPost()) {
      return new RequestRefusal(
          405,
          Status.INTERNAL.withDescription("Method '" + request.methodText() + "' is not supported"),
          true);
    }
    if (contentType == null || !GrpcWire.isServedGrpcContentType(contentType)) {
      return new RequestRefusal(
          415,
          Status.INTERNAL.withDescription("Content-Type '" + contentType + "' is not supported"),
          true);
    }
    if (path.length() < 2 || path.charAt(0) != '/') {
      return new RequestRefusal(
          404,
          Status.UNIMPLEMENTED.withDescription("Expected path to start with /: " + path),
          false);
    }
    if (request.invalidBinaryHeader() != null) {
      return new RequestRefusal(
          400, Status.INTERNAL.withDescription(request.invalidBinaryHeader()), false);
    }
    return null;
  }
}
