package dev.tern.conformance;

import com.google.protobuf.Any;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.conformance.v1.Code;
import dev.tern.conformance.v1.Error;
import dev.tern.protobuf.StatusProto;
import java.util.List;

/**
 * Converts between a call's {@link Status} (with the {@code grpc-status-details-bin} trailer that
 * carries error details) and the runner's {@link Error}. Connect's codes are gRPC's, by number.
 *
 * <p>Stateless.
 */
final class ConformanceErrors {
  private ConformanceErrors() {}

  /**
   * The error a call that ended with {@code status} and {@code trailers} reports: code, message
   * (only when the status has a description) and the details of the {@code google.rpc.Status} in
   * the trailers, if any.
   */
  static Error fromStatus(Status status, Metadata trailers) {
    Error.Builder error = Error.newBuilder().setCodeValue(status.getCode().value());
    if (status.getDescription() != null) {
      error.setMessage(status.getDescription());
    }
    com.google.rpc.Status details = detailsOf(trailers);
    if (details != null) {
      error.addAllDetails(details.getDetailsList());
    }
    return error.build();
  }

  private static com.google.rpc.Status detailsOf(Metadata trailers) {
    if (trailers == null) {
      return null;
    }
    try {
      return trailers.get(StatusProto.STATUS_DETAILS_KEY);
    } catch (RuntimeException e) {
      // Not a google.rpc.Status: the error is reported without details, which the runner notices.
      return null;
    }
  }

  /**
   * The status {@code error} asks for, whose trailers ({@code trailers}, added to) carry its
   * details and {@code extraDetail} (when not null) in a {@code google.rpc.Status}.
   *
   * @throws IllegalArgumentException if the code is not an error code (1 to 16)
   */
  static Status toStatus(Error error, Any extraDetail, Metadata trailers) {
    Code code = error.getCode();
    if (code == Code.CODE_UNSPECIFIED || code == Code.UNRECOGNIZED) {
      throw new IllegalArgumentException("error code must be 1..16, was " + error.getCodeValue());
    }
    Status status = Status.fromCodeValue(error.getCodeValue());
    if (error.hasMessage()) {
      status = status.withDescription(error.getMessage());
    }
    List<Any> details = error.getDetailsList();
    if (!details.isEmpty() || extraDetail != null) {
      com.google.rpc.Status.Builder proto =
          com.google.rpc.Status.newBuilder()
              .setCode(error.getCodeValue())
              .setMessage(error.getMessage())
              .addAllDetails(details);
      if (extraDetail != null) {
        proto.addDetails(extraDetail);
      }
      trailers.put(StatusProto.STATUS_DETAILS_KEY, proto.build());
    }
    return status;
  }
}
