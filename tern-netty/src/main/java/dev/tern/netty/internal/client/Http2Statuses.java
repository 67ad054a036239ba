package dev.tern.netty.internal.client;

import dev.tern.Status;
import dev.tern.internal.wire.GrpcMessageCodec;
import dev.tern.netty.internal.grpc.GrpcWire;
import dev.tern.netty.internal.http2.Http2FrameException;
import io.netty.util.AsciiString;

/**
 * Maps what HTTP/2 says about a client's call to a gRPC {@link Status}, as the wire protocol
 * prescribes: {@code grpc-status}/{@code grpc-message} when present, the HTTP {@code :status}
 * otherwise, and RST_STREAM error codes.
 *
 * <p>Stateless; thread-safe.
 */
public final class Http2Statuses {
  private Http2Statuses() {}

  /**
   * Checks the head of a response (its first HEADERS frame, or the only one of a Trailers-Only
   * response): null if it is a gRPC response ({@code :status 200} and a gRPC {@code content-type}),
   * otherwise the status the call ends with. A response that is not gRPC's is judged by its HTTP
   * status alone, with gRPC's HTTP-to-status mapping (doc/http-grpc-status- mapping.md in the gRPC
   * repository), in which 200 is {@code UNKNOWN}; without {@code :status} the response is
   * malformed: {@code INTERNAL}.
   */
  public static Status checkResponseHead(GrpcResponseHeaders headers) {
    CharSequence httpStatus = headers.status();
    if (httpStatus == null) {
      return Status.INTERNAL.withDescription("Response headers without :status");
    }
    int code = parseHttpStatus(httpStatus);
    if (code != 200) {
      return fromHttpStatus(code, httpStatus);
    }
    CharSequence contentType = headers.contentType();
    if (!GrpcWire.isGrpcContentType(contentType)) {
      return Status.UNKNOWN.withDescription(
          contentType == null
              ? "Response without content-type (HTTP status code 200)"
              : "Invalid content-type in the response: " + contentType);
    }
    return null;
  }

  /**
   * The status of a Trailers-Only response (a single HEADERS frame with END_STREAM). A {@code
   * grpc-status} is used whenever the response is gRPC's ({@code :status} present and a gRPC {@code
   * content-type}), even beside an HTTP error status: the gRPC status is what the server meant.
   * Otherwise the response is checked as response headers are ({@link #checkResponseHead}), so that
   * both shapes of one response end alike; a gRPC response without {@code grpc-status} is {@code
   * UNKNOWN}, as gRPC's HTTP-to-status mapping has it for HTTP 200.
   */
  public static Status fromTrailersOnly(GrpcResponseHeaders headers) {
    if (headers.grpcStatus() != null
        && headers.status() != null
        && GrpcWire.isGrpcContentType(headers.contentType())) {
      return fromGrpcStatus(headers);
    }
    Status invalidHead = checkResponseHead(headers);
    if (invalidHead != null) {
      return invalidHead;
    }
    return Status.UNKNOWN.withDescription("Missing grpc-status in the response (HTTP status 200)");
  }

  /**
   * The status the trailers after response headers carry; without {@code grpc-status}, {@code
   * UNKNOWN} (the response headers said HTTP 200, which gRPC's HTTP-to-status mapping makes {@code
   * UNKNOWN}).
   */
  public static Status fromTrailers(GrpcResponseHeaders trailers) {
    if (trailers.grpcStatus() == null) {
      return Status.UNKNOWN.withDescription("Missing grpc-status in the response's trailers");
    }
    return fromGrpcStatus(trailers);
  }

  /** The status in {@code grpc-status} (present) and {@code grpc-message}. */
  private static Status fromGrpcStatus(GrpcResponseHeaders headers) {
    Status status = Status.fromCodeValue(parseCode(headers.grpcStatus()));
    CharSequence message = headers.grpcMessage();
    if (message != null) {
      status = status.withDescription(GrpcMessageCodec.decode(GrpcWire.bytes(message)));
    }
    return status;
  }

  /** Whether {@code httpStatus} is informational (1xx); false if null or not a number. */
  public static boolean isInformational(CharSequence httpStatus) {
    return httpStatus != null
        && httpStatus.length() == 3
        && httpStatus.charAt(0) == '1'
        && isDigit(httpStatus.charAt(1))
        && isDigit(httpStatus.charAt(2));
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
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

  /**
   * The status for an HTTP response that carries no gRPC status, by gRPC's HTTP-to-status mapping.
   * 431 stays {@code UNKNOWN}, although that mapping lists it as {@code INTERNAL}: the Connect
   * conformance suite's client mode requires {@code UNKNOWN} there (its
   * request-header-fields-too-large case), and so does this project's wire-protocol digest.
   */
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
    Status.Code code;
    if (errorCode == Http2FrameException.REFUSED_STREAM) {
      code = Status.Code.UNAVAILABLE;
    } else if (errorCode == Http2FrameException.CANCEL) {
      code = Status.Code.CANCELLED;
    } else if (errorCode == Http2FrameException.ENHANCE_YOUR_CALM) {
      code = Status.Code.RESOURCE_EXHAUSTED;
    } else if (errorCode == Http2FrameException.INADEQUATE_SECURITY) {
      code = Status.Code.PERMISSION_DENIED;
    } else {
      code = Status.Code.INTERNAL;
    }
    return Status.fromCode(code)
        .withDescription("Received RST_STREAM with error code " + GrpcWire.errorName(errorCode));
  }
}
