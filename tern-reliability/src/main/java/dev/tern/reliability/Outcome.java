package dev.tern.reliability;

/**
 * How one call of the workload ended: its status code's name ({@value #HANG} if it had not ended
 * {@link Workload#HANG_GRACE} after its deadline), when it started and ended ({@link
 * System#nanoTime}).
 */
public record Outcome(
    CallKind kind, String code, String description, long startNanos, long endNanos) {
  /** The code of a call that outlived its deadline by more than the grace. */
  public static final String HANG = "HANG";

  /**
   * Whether this is a status a network fault may cause: OK, UNAVAILABLE, DEADLINE_EXCEEDED,
   * CANCELLED.
   */
  public boolean allowed() {
    return switch (code) {
      case "OK", "UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED" -> true;
      default -> false;
    };
  }

  /** Whether the call ended as it does without faults ({@link CallKind#expectedCode}). */
  public boolean succeeded() {
    return code.equals(kind.expectedCode());
  }
}
