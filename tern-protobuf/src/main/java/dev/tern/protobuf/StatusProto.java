package dev.tern.protobuf;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.StatusRuntimeException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The rich error model: a {@code google.rpc.Status} (code, message, typed details) sent in the
 * {@code grpc-status-details-bin} trailer next to the plain {@code grpc-status} and {@code
 * grpc-message}. A server throws what {@link #toStatusRuntimeException} builds; a client reads the
 * details back with {@link #fromThrowable}.
 *
 * <p>The messages are the standard ones of {@code com.google.api.grpc:proto-google-common-protos}
 * (a dependency of this module): {@code com.google.rpc.Status} and the details of {@code
 * google/rpc/error_details.proto} ({@code ErrorInfo}, {@code RetryInfo}, {@code DebugInfo}, {@code
 * QuotaFailure}, {@code PreconditionFailure}, {@code BadRequest}, {@code RequestInfo}, {@code
 * ResourceInfo}, {@code Help}, {@code LocalizedMessage}), or any message of the application's own,
 * each packed in an {@code Any}. The trailer is the one grpc-java's and every other gRPC
 * implementation's rich errors use.
 *
 * <pre>{@code
 * com.google.rpc.Status details = com.google.rpc.Status.newBuilder()
 *     .setCode(Status.Code.INVALID_ARGUMENT.value())
 *     .setMessage("name must not be empty")
 *     .addDetails(Any.pack(BadRequest.newBuilder()
 *         .addFieldViolations(FieldViolation.newBuilder()
 *             .setField("name").setDescription("must not be empty"))
 *         .build()))
 *     .build();
 * responseObserver.onError(StatusProto.toStatusRuntimeException(details));
 * }</pre>
 *
 * <p>A client reads a detail of a given type with protobuf's own {@code Any} methods:
 *
 * <pre>{@code
 * com.google.rpc.Status received = StatusProto.fromThrowable(e);
 * for (Any detail : received.getDetailsList()) {
 *   if (detail.is(BadRequest.class)) {
 *     BadRequest badRequest = detail.unpack(BadRequest.class);
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>Thread-safety: stateless; every method may be called from any thread.
 */
public final class StatusProto {

  /** The trailer that carries the serialized {@code google.rpc.Status}. */
  public static final Metadata.Key<com.google.rpc.Status> STATUS_DETAILS_KEY =
      Metadata.Key.of(
          "grpc-status-details-bin",
          ProtoUtils.metadataMarshaller(com.google.rpc.Status.getDefaultInstance()));

  private StatusProto() {}

  /**
   * Returns an exception whose status has {@code statusProto}'s code and message (as description)
   * and whose trailers carry {@code statusProto} itself.
   *
   * @throws IllegalArgumentException if the code is OK or not a valid gRPC code
   */
  public static StatusRuntimeException toStatusRuntimeException(com.google.rpc.Status statusProto) {
    return toStatus(statusProto).asRuntimeException(toTrailers(statusProto, null));
  }

  /**
   * Like {@link #toStatusRuntimeException(com.google.rpc.Status)}, with the entries of {@code
   * trailers} sent too (any {@code grpc-status-details-bin} in them is replaced). {@code trailers}
   * is not modified.
   */
  public static StatusRuntimeException toStatusRuntimeException(
      com.google.rpc.Status statusProto, Metadata trailers) {
    Objects.requireNonNull(trailers, "trailers");
    return toStatus(statusProto).asRuntimeException(toTrailers(statusProto, trailers));
  }

  /** The checked counterpart of {@link #toStatusRuntimeException(com.google.rpc.Status)}. */
  public static StatusException toStatusException(com.google.rpc.Status statusProto) {
    return toStatus(statusProto).asException(toTrailers(statusProto, null));
  }

  /**
   * The checked counterpart of {@link #toStatusRuntimeException(com.google.rpc.Status, Metadata)}.
   */
  public static StatusException toStatusException(
      com.google.rpc.Status statusProto, Metadata trailers) {
    Objects.requireNonNull(trailers, "trailers");
    return toStatus(statusProto).asException(toTrailers(statusProto, trailers));
  }

  /**
   * Returns the {@code google.rpc.Status} of the first {@link StatusException} or {@link
   * StatusRuntimeException} in {@code t}'s cause chain (as {@link #fromStatusAndTrailers}), or null
   * if the chain has no such exception.
   *
   * @throws IllegalArgumentException as {@link #fromStatusAndTrailers}
   */
  public static com.google.rpc.Status fromThrowable(Throwable t) {
    Objects.requireNonNull(t, "t");
    // Identity set: a cause chain may loop back on itself (initCause allows it).
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable cause = t; cause != null && seen.put(cause, true) == null; ) {
      if (cause instanceof StatusException) {
        StatusException e = (StatusException) cause;
        return fromStatusAndTrailers(e.getStatus(), e.getTrailers());
      }
      if (cause instanceof StatusRuntimeException) {
        StatusRuntimeException e = (StatusRuntimeException) cause;
        return fromStatusAndTrailers(e.getStatus(), e.getTrailers());
      }
      cause = cause.getCause();
    }
    return null;
  }

  /**
   * Returns the {@code google.rpc.Status} in {@code trailers}; if there is none, one made from
   * {@code status}'s code and description (without details).
   *
   * @param trailers the trailers received with {@code status}; may be null
   * @throws IllegalArgumentException if the trailer holds bytes that are not a {@code
   *     google.rpc.Status}, or one whose code differs from {@code status}'s: the peer sent
   *     contradictory errors, and neither can be trusted over the other
   */
  public static com.google.rpc.Status fromStatusAndTrailers(Status status, Metadata trailers) {
    Objects.requireNonNull(status, "status");
    com.google.rpc.Status statusProto = trailers == null ? null : trailers.get(STATUS_DETAILS_KEY);
    if (statusProto == null) {
      com.google.rpc.Status.Builder built =
          com.google.rpc.Status.newBuilder().setCode(status.getCode().value());
      if (status.getDescription() != null) {
        built.setMessage(status.getDescription());
      }
      return built.build();
    }
    if (statusProto.getCode() != status.getCode().value()) {
      throw new IllegalArgumentException(
          "google.rpc.Status code "
              + statusProto.getCode()
              + " does not match the status code "
              + status.getCode()
              + " ("
              + status.getCode().value()
              + ")");
    }
    return statusProto;
  }

  private static Status toStatus(com.google.rpc.Status statusProto) {
    Objects.requireNonNull(statusProto, "statusProto");
    int code = statusProto.getCode();
    if (code <= 0 || code >= Status.Code.values().length) {
      throw new IllegalArgumentException(
          "statusProto.code must be a gRPC error code (1..16), not " + code);
    }
    Status status = Status.fromCodeValue(code);
    return statusProto.getMessage().isEmpty()
        ? status
        : status.withDescription(statusProto.getMessage());
  }

  private static Metadata toTrailers(com.google.rpc.Status statusProto, Metadata extra) {
    Metadata trailers = new Metadata();
    if (extra != null) {
      trailers.merge(extra);
      trailers.discardAll(STATUS_DETAILS_KEY);
    }
    trailers.put(STATUS_DETAILS_KEY, statusProto);
    return trailers;
  }
}
