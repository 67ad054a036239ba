package dev.tern;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The outcome of a call: a {@link Code}, an optional human-readable description and an optional
 * local cause. Only the code and description travel to the peer (as {@code grpc-status} and {@code
 * grpc-message}); the cause stays in this process, for logs and debugging.
 *
 * <p>Every {@code with*} method returns a new {@code Status} when something changes and {@code
 * this} otherwise. {@code Status} does not override {@code equals}: compare codes with {@code
 * getCode()}.
 *
 * <p>Immutable; thread-safe.
 */
public final class Status {

  /** The status codes of the gRPC protocol, with their wire values. */
  public enum Code {
    /** Not an error: the call completed successfully. */
    OK(0),
    /** The call was cancelled, typically by the caller. */
    CANCELLED(1),
    /** An error with no better code, for example one raised by an application handler. */
    UNKNOWN(2),
    /** The client sent an argument that is invalid regardless of system state. */
    INVALID_ARGUMENT(3),
    /** The deadline expired before the call could complete. */
    DEADLINE_EXCEEDED(4),
    /** A requested entity was not found. */
    NOT_FOUND(5),
    /** The entity the client tried to create already exists. */
    ALREADY_EXISTS(6),
    /** The caller is not permitted to perform the operation. */
    PERMISSION_DENIED(7),
    /** A resource (quota, memory, message size limit, ...) is exhausted. */
    RESOURCE_EXHAUSTED(8),
    /** The system is not in a state required for the operation. */
    FAILED_PRECONDITION(9),
    /** The operation was aborted, typically by a concurrency conflict. */
    ABORTED(10),
    /** The operation was attempted past the valid range. */
    OUT_OF_RANGE(11),
    /** The operation is not implemented or supported, e.g. an unknown method. */
    UNIMPLEMENTED(12),
    /** An internal invariant was broken, e.g. a protocol violation. */
    INTERNAL(13),
    /** The service is currently unavailable; retrying may succeed. */
    UNAVAILABLE(14),
    /** Unrecoverable data loss or corruption. */
    DATA_LOSS(15),
    /** The request lacks valid authentication credentials. */
    UNAUTHENTICATED(16);

    private final int value;
    private final byte[] valueAscii;

    Code(int value) {
      this.value = value;
      this.valueAscii = Integer.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /** The code's number on the wire. */
    public int value() {
      return value;
    }

    /**
     * For transport implementations: {@link #value()} as decimal ASCII bytes, ready for a {@code
     * grpc-status} header. Cached and shared: do not modify.
     */
    public byte[] valueAscii() {
      return valueAscii;
    }

    /** The shared {@code Status} with this code, no description and no cause. */
    public Status toStatus() {
      return BY_CODE_VALUE[value];
    }
  }

  /** One cached status per code, indexed by code value. Declared before the constants below. */
  private static final Status[] BY_CODE_VALUE = buildByCodeValue();

  private static Status[] buildByCodeValue() {
    Code[] codes = Code.values();
    Status[] statuses = new Status[codes.length];
    for (Code code : codes) {
      statuses[code.value()] = new Status(code, null, null);
    }
    return statuses;
  }

  /** {@link Code#OK}. */
  public static final Status OK = Code.OK.toStatus();

  /** {@link Code#CANCELLED}. */
  public static final Status CANCELLED = Code.CANCELLED.toStatus();

  /** {@link Code#UNKNOWN}. */
  public static final Status UNKNOWN = Code.UNKNOWN.toStatus();

  /** {@link Code#INVALID_ARGUMENT}. */
  public static final Status INVALID_ARGUMENT = Code.INVALID_ARGUMENT.toStatus();

  /** {@link Code#DEADLINE_EXCEEDED}. */
  public static final Status DEADLINE_EXCEEDED = Code.DEADLINE_EXCEEDED.toStatus();

  /** {@link Code#NOT_FOUND}. */
  public static final Status NOT_FOUND = Code.NOT_FOUND.toStatus();

  /** {@link Code#ALREADY_EXISTS}. */
  public static final Status ALREADY_EXISTS = Code.ALREADY_EXISTS.toStatus();

  /** {@link Code#PERMISSION_DENIED}. */
  public static final Status PERMISSION_DENIED = Code.PERMISSION_DENIED.toStatus();

  /** {@link Code#RESOURCE_EXHAUSTED}. */
  public static final Status RESOURCE_EXHAUSTED = Code.RESOURCE_EXHAUSTED.toStatus();

  /** {@link Code#FAILED_PRECONDITION}. */
  public static final Status FAILED_PRECONDITION = Code.FAILED_PRECONDITION.toStatus();

  /** {@link Code#ABORTED}. */
  public static final Status ABORTED = Code.ABORTED.toStatus();

  /** {@link Code#OUT_OF_RANGE}. */
  public static final Status OUT_OF_RANGE = Code.OUT_OF_RANGE.toStatus();

  /** {@link Code#UNIMPLEMENTED}. */
  public static final Status UNIMPLEMENTED = Code.UNIMPLEMENTED.toStatus();

  /** {@link Code#INTERNAL}. */
  public static final Status INTERNAL = Code.INTERNAL.toStatus();

  /** {@link Code#UNAVAILABLE}. */
  public static final Status UNAVAILABLE = Code.UNAVAILABLE.toStatus();

  /** {@link Code#DATA_LOSS}. */
  public static final Status DATA_LOSS = Code.DATA_LOSS.toStatus();

  /** {@link Code#UNAUTHENTICATED}. */
  public static final Status UNAUTHENTICATED = Code.UNAUTHENTICATED.toStatus();

  private final Code code;
  private final String description;
  private final Throwable cause;

  private Status(Code code, String description, Throwable cause) {
    this.code = code;
    this.description = description;
    this.cause = cause;
  }

  /** The shared status for {@code code}, with no description and no cause. */
  public static Status fromCode(Code code) {
    return Objects.requireNonNull(code, "code").toStatus();
  }

  /**
   * The shared status for the code numbered {@code codeValue}; a number outside 0..16 (for example
   * one received from a newer peer) gives {@link #UNKNOWN} described as {@code "Unknown code N"}.
   */
  public static Status fromCodeValue(int codeValue) {
    if (codeValue >= 0 && codeValue < BY_CODE_VALUE.length) {
      return BY_CODE_VALUE[codeValue];
    }
    return UNKNOWN.withDescription("Unknown code " + codeValue);
  }

  /**
   * The status carried by the first {@link StatusException} or {@link StatusRuntimeException} in
   * {@code t}'s cause chain (starting with {@code t} itself); if there is none, {@link #UNKNOWN}
   * with {@code t} as its cause.
   */
  public static Status fromThrowable(Throwable t) {
    Throwable carrier = findStatusCarrier(Objects.requireNonNull(t, "t"));
    if (carrier instanceof StatusException) {
      return ((StatusException) carrier).getStatus();
    }
    if (carrier instanceof StatusRuntimeException) {
      return ((StatusRuntimeException) carrier).getStatus();
    }
    return UNKNOWN.withCause(t);
  }

  /**
   * The trailers of the first {@link StatusException} or {@link StatusRuntimeException} in {@code
   * t}'s cause chain, or null if there is no such exception or it has no trailers.
   */
  public static Metadata trailersFromThrowable(Throwable t) {
    Throwable carrier = findStatusCarrier(Objects.requireNonNull(t, "t"));
    if (carrier instanceof StatusException) {
      return ((StatusException) carrier).getTrailers();
    }
    if (carrier instanceof StatusRuntimeException) {
      return ((StatusRuntimeException) carrier).getTrailers();
    }
    return null;
  }

  /** Walks the cause chain, stopping on a cycle (possible with {@code initCause}). */
  private static Throwable findStatusCarrier(Throwable t) {
    Throwable current = t;
    Throwable lagging = t; // advances at half speed: meeting it again means a cycle
    boolean advanceLagging = false;
    while (current != null) {
      if (current instanceof StatusException || current instanceof StatusRuntimeException) {
        return current;
      }
      current = current.getCause();
      if (advanceLagging) {
        lagging = lagging.getCause();
      }
      advanceLagging = !advanceLagging;
      if (current == lagging) {
        return null;
      }
    }
    return null;
  }

  /** The code. */
  public Code getCode() {
    return code;
  }

  /** The description, or null if there is none. */
  public String getDescription() {
    return description;
  }

  /** The local cause (never sent to the peer), or null if there is none. */
  public Throwable getCause() {
    return cause;
  }

  /** Whether the code is {@link Code#OK}. */
  public boolean isOk() {
    return code == Code.OK;
  }

  /** This status with {@code description} (null removes it) replacing the current one. */
  public Status withDescription(String description) {
    if (Objects.equals(this.description, description)) {
      return this;
    }
    return new Status(code, description, cause);
  }

  /**
   * This status with {@code additionalDetail} appended to the description on a new line (or as the
   * description if there is none). A null {@code additionalDetail} changes nothing.
   */
  public Status augmentDescription(String additionalDetail) {
    if (additionalDetail == null) {
      return this;
    }
    if (description == null) {
      return new Status(code, additionalDetail, cause);
    }
    return new Status(code, description + "\n" + additionalDetail, cause);
  }

  /** This status with {@code cause} (null removes it) replacing the current one. */
  public Status withCause(Throwable cause) {
    if (this.cause == cause) {
      return this;
    }
    return new Status(code, description, cause);
  }

  /** A checked exception carrying this status and no trailers. */
  public StatusException asException() {
    return new StatusException(this);
  }

  /** A checked exception carrying this status and {@code trailers} (may be null). */
  public StatusException asException(Metadata trailers) {
    return new StatusException(this, trailers);
  }

  /** An unchecked exception carrying this status and no trailers. */
  public StatusRuntimeException asRuntimeException() {
    return new StatusRuntimeException(this);
  }

  /** An unchecked exception carrying this status and {@code trailers} (may be null). */
  public StatusRuntimeException asRuntimeException(Metadata trailers) {
    return new StatusRuntimeException(this, trailers);
  }

  /** {@code "CODE"} or {@code "CODE: description"}, the message of the exceptions. */
  String toExceptionMessage() {
    return description == null ? code.name() : code.name() + ": " + description;
  }

  /** E.g. {@code Status{code=NOT_FOUND, description=no such user, cause=null}}. */
  @Override
  public String toString() {
    return "Status{code="
        + code
        + ", description="
        + description
        + ", cause="
        + (cause == null ? null : cause.toString())
        + "}";
  }
}
