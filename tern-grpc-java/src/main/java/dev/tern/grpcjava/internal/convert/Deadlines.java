package dev.tern.grpcjava.internal.convert;

import java.util.concurrent.TimeUnit;

/**
 * Converts deadlines both ways by their time remaining on the system ticker (both libraries'
 * deadlines are points on {@code System.nanoTime()}), null to null. Stateless and thread-safe.
 */
public final class Deadlines {
  private Deadlines() {}

  /** {@code deadline} as Tern's, or null. */
  public static dev.tern.Deadline toTern(io.grpc.Deadline deadline) {
    return deadline == null
        ? null
        : dev.tern.Deadline.after(
            deadline.timeRemaining(TimeUnit.NANOSECONDS), TimeUnit.NANOSECONDS);
  }

  /** {@code deadline} as grpc-java's, or null. */
  public static io.grpc.Deadline toGrpc(dev.tern.Deadline deadline) {
    return deadline == null
        ? null
        : io.grpc.Deadline.after(
            deadline.timeRemaining(TimeUnit.NANOSECONDS), TimeUnit.NANOSECONDS);
  }

  /** The earlier of two grpc-java deadlines, either of which may be null (no deadline). */
  public static io.grpc.Deadline earlier(io.grpc.Deadline a, io.grpc.Deadline b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : a.minimum(b);
  }
}
