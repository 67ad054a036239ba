package dev.tern.grpcjava.internal.convert;

/**
 * Converts {@code Status} both ways: the code (by its wire value), the description and the cause.
 * Stateless and thread-safe.
 */
public final class Statuses {
  private Statuses() {}

  /** {@code status} as Tern's. */
  public static dev.tern.Status toTern(io.grpc.Status status) {
    return dev.tern.Status.fromCodeValue(status.getCode().value())
        .withDescription(status.getDescription())
        .withCause(status.getCause());
  }

  /** {@code status} as grpc-java's. */
  public static io.grpc.Status toGrpc(dev.tern.Status status) {
    return io.grpc.Status.fromCodeValue(status.getCode().value())
        .withDescription(status.getDescription())
        .withCause(status.getCause());
  }
}
