package dev.tern.netty.internal;

import dev.tern.Status;
import dev.tern.internal.wire.GrpcMessageCodec;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.util.AsciiString;
import java.io.IOException;

/**
 * Maps what HTTP/2 says about a call to a gRPC {@link Status}, as the wire protocol prescribes:
 * {@code grpc-status}/{@code grpc-message} when present, the HTTP {@code :status} otherwise, and
 * RST_STREAM error codes.
 *
 * <p>Stateless; thread-safe.
 */
final class Http2Statuses {
  private Http2Statuses() {}

  /**
   * The status of the calls a connection's I/O failure ended (a reset by the peer, a broken pipe):
   * UNAVAILABLE, saying so, with the failure as the cause.
   */
  static Status networkFailure(IOException failure) {
    String message = failure.getMessage();
    return Status.UNAVAILABLE
        .withDescription(
            "I/O error on the connection: "
                + (message != null ? message : failure.getClass().getSimpleName()))
        .withCause(failure);
  }

  /** The status a response's trailers (or Trailers-Only headers) carry. */
  static Status fromTrailers(GrpcResponseHeaders trailers) {
    CharSequence grpcStatus = trailers.grpcStatus();
    if (grpcStatus == null) {
      CharSequence httpStatus = trailers.status();
      if (httpStatus == null) {
        return Status.INTERNAL.withDescription("missing HTTP status and grpc-status in trailers");
      }
      int code = parseHttpStatus(httpStatus);
      if (code == 200) {
        return Status.INTERNAL.withDescription("missing grpc-status in the response (HTTP 200)");
      }
      return fromHttpStatus(code, httpStatus);
    }
    Status status = Status.fromCodeValue(parseCode(grpcStatus));
    CharSequence message = trailers.grpcMessage();
    if (message != null) {
      status = status.withDescription(GrpcMessageCodec.decode(GrpcInboundHeaders.bytes(message)));
    }
    return status;
  }

  /** The code in a {@code grpc-status} value; -1 (UNKNOWN) if it is not a small decimal. */
  private static int parseCode(CharSequence value) {
    int length = value.length();
    if (length == 0 || length > 2) {
      return -1;
    }
    int code = 0;
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      code = code * 10 + (c - '0');
    }
    return code;
  }

  /** The numeric HTTP status, or -1 if it is not a number. */
  static int parseHttpStatus(CharSequence value) {
    try {
      return AsciiString.of(value).parseInt();
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The status for an HTTP response that carries no gRPC status. */
  static Status fromHttpStatus(int httpStatus, CharSequence raw) {
    Status.Code code;
    switch (httpStatus) {
      case 400:
        code = Status.Code.INTERNAL;
        break;
      case 401:
        code = Status.Code.UNAUTHENTICATED;
        break;
      case 403:
        code = Status.Code.PERMISSION_DENIED;
        break;
      case 404:
        code = Status.Code.UNIMPLEMENTED;
        break;
      case 429:
      case 502:
      case 503:
      case 504:
        code = Status.Code.UNAVAILABLE;
        break;
      default:
        code = Status.Code.UNKNOWN;
    }
    return Status.fromCode(code).withDescription("HTTP status code " + raw);
  }

  /** The status a client reports for a RST_STREAM with {@code errorCode}. */
  static Status fromRstStream(long errorCode) {
    Http2Error error = Http2Error.valueOf(errorCode);
    Status.Code code;
    if (error == null) {
      code = Status.Code.INTERNAL;
    } else {
      switch (error) {
        case REFUSED_STREAM:
          code = Status.Code.UNAVAILABLE;
          break;
        case CANCEL:
          code = Status.Code.CANCELLED;
          break;
        case ENHANCE_YOUR_CALM:
          code = Status.Code.RESOURCE_EXHAUSTED;
          break;
        case INADEQUATE_SECURITY:
          code = Status.Code.PERMISSION_DENIED;
          break;
        default:
          code = Status.Code.INTERNAL;
      }
    }
    return Status.fromCode(code)
        .withDescription("Received RST_STREAM with error code " + errorName(errorCode));
  }

  /** The name of an HTTP/2 error code, or its hex value if unknown. */
  static String errorName(long errorCode) {
    Http2Error error = Http2Error.valueOf(errorCode);
    return error == null ? "0x" + Long.toHexString(errorCode) : error.name();
  }
}
