package dev.tern.xds.internal.filter;

import dev.tern.Status;

/** gRPC's table from HTTP statuses to gRPC codes (doc/http-grpc-status-mapping.md). */
final class HttpStatuses {
  private HttpStatuses() {}

  static Status.Code toGrpc(int httpStatus) {
    return switch (httpStatus) {
      case 400 -> Status.Code.INTERNAL;
      case 401 -> Status.Code.UNAUTHENTICATED;
      case 403 -> Status.Code.PERMISSION_DENIED;
      case 404 -> Status.Code.UNIMPLEMENTED;
      case 429, 502, 503, 504 -> Status.Code.UNAVAILABLE;
      default -> Status.Code.UNKNOWN; // 200 too: an HTTP 200 without grpc-status (A33)
    };
  }
}
