package dev.tern;

import java.util.Objects;

/**
 * The unchecked exception form of a {@link Status}, optionally with trailers to send to (or
 * received from) the peer. The message is {@code "CODE"} or {@code "CODE: description"}; the cause
 * is the status's cause.
 *
 * <p>The status and trailers are not serialized (they are transient): a deserialized copy has a
 * null {@link #getStatus()} and {@link #getTrailers()}.
 */
public class StatusRuntimeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Not serializable (and {@link Metadata} is not thread-safe): kept out of the serial form. */
  private final transient Status status;

  private final transient Metadata trailers;

  /** An exception carrying {@code status} and no trailers. */
  public StatusRuntimeException(Status status) {
    this(status, null);
  }

  /** An exception carrying {@code status} and {@code trailers} (may be null). */
  public StatusRuntimeException(Status status, Metadata trailers) {
    super(Objects.requireNonNull(status, "status").toExceptionMessage(), status.getCause());
    this.status = status;
    this.trailers = trailers;
  }

  /** The status this exception carries. */
  public final Status getStatus() {
    return status;
  }

  /** The trailers this exception carries, or null if there are none. */
  public final Metadata getTrailers() {
    return trailers;
  }
}
