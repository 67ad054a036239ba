package dev.tern.interop.xds;

import dev.tern.Status;
import java.util.List;
import java.util.Objects;

/**
 * What the xDS test server does with one call, read from the call's {@code rpc-behavior} request
 * headers: wait {@link #delayMillis()}, then {@link #outcome()}.
 *
 * <p>Each header value is a comma-separated list of behaviours, applied in order (several header
 * values: in the order they were sent):
 *
 * <ul>
 *   <li>{@code sleep-N}: wait N seconds (several add up);
 *   <li>{@code keep-open}: never answer (the client's deadline or cancellation ends the call);
 *   <li>{@code error-code-N}: fail with status code N;
 *   <li>{@code success-on-retry-attempt-N}: when the call's {@code grpc-previous-rpc-attempts} is
 *       N, answer normally and ignore the behaviours after it;
 *   <li>{@code hostname=H B}: behaviour B only on the server whose hostname is H.
 * </ul>
 *
 * <p>Immutable, so thread-safe.
 */
final class RpcBehavior {
  /** What ends the call once the delay is over. */
  enum Outcome {
    /** The service answers the call. */
    SERVE,
    /** Nothing answers; the client ends the call. */
    KEEP_OPEN,
    /** The call fails with {@link #error()}. */
    FAIL
  }

  private static final RpcBehavior SERVE_NOW = new RpcBehavior(0, Outcome.SERVE, null);

  private final long delayMillis;
  private final Outcome outcome;
  private final Status error;

  private RpcBehavior(long delayMillis, Outcome outcome, Status error) {
    this.delayMillis = delayMillis;
    this.outcome = outcome;
    this.error = error;
  }

  long delayMillis() {
    return delayMillis;
  }

  Outcome outcome() {
    return outcome;
  }

  /** The status to fail with, when {@link #outcome()} is {@link Outcome#FAIL}; else null. */
  Status error() {
    return error;
  }

  /**
   * The behaviour that {@code headerValues} ask of the server named {@code hostname}, for an
   * attempt that follows {@code previousAttempts} others.
   *
   * @throws IllegalArgumentException naming the bad behaviour when a value is not one of the forms
   *     above (the server fails such a call INVALID_ARGUMENT with this message)
   */
  static RpcBehavior of(List<String> headerValues, String hostname, int previousAttempts) {
    Objects.requireNonNull(hostname, "hostname");
    long delayMillis = 0;
    for (String value : headerValues) {
      for (String item : value.split(",", -1)) {
        String behavior = item.strip();
        if (behavior.startsWith("hostname=")) {
          int space = behavior.indexOf(' ');
          if (space < 0) {
            throw new IllegalArgumentException(
                "rpc-behavior '" + behavior + "': hostname=H must be followed by a behaviour");
          }
          if (!behavior.substring("hostname=".length(), space).equals(hostname)) {
            continue;
          }
          behavior = behavior.substring(space + 1).strip();
        }
        if (behavior.equals("keep-open")) {
          return new RpcBehavior(delayMillis, Outcome.KEEP_OPEN, null);
        } else if (behavior.startsWith("sleep-")) {
          delayMillis += 1000L * number(behavior, "sleep-");
        } else if (behavior.startsWith("error-code-")) {
          int code = number(behavior, "error-code-");
          if (code == 0 || code > 16) {
            throw new IllegalArgumentException(
                "rpc-behavior '" + behavior + "': N must be a status code from 1 to 16");
          }
          return new RpcBehavior(
              delayMillis,
              Outcome.FAIL,
              Status.fromCodeValue(code).withDescription("rpc-behavior: " + behavior));
        } else if (behavior.startsWith("success-on-retry-attempt-")) {
          if (number(behavior, "success-on-retry-attempt-") == previousAttempts) {
            return new RpcBehavior(delayMillis, Outcome.SERVE, null);
          }
        } else if (!behavior.isEmpty()) {
          throw new IllegalArgumentException(
              "unknown rpc-behavior '"
                  + behavior
                  + "' (known: sleep-N, keep-open, error-code-N, success-on-retry-attempt-N,"
                  + " hostname=H <behaviour>)");
        }
      }
    }
    return delayMillis == 0 ? SERVE_NOW : new RpcBehavior(delayMillis, Outcome.SERVE, null);
  }

  private static int number(String behavior, String prefix) {
    String digits = behavior.substring(prefix.length());
    try {
      int n = Integer.parseInt(digits);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new IllegalArgumentException(
        "rpc-behavior '" + behavior + "': " + prefix + "N needs a whole number N >= 0");
  }
}
