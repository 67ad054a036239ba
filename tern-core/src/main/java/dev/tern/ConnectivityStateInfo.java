package dev.tern;

import java.util.Objects;

/**
 * A connectivity state with, for {@link ConnectivityState#TRANSIENT_FAILURE}, the error that caused
 * it. Subchannels report these to their load balancer.
 *
 * <p>Immutable; thread-safe.
 */
public final class ConnectivityStateInfo {
  private final ConnectivityState state;
  private final Status status;

  private ConnectivityStateInfo(ConnectivityState state, Status status) {
    this.state = state;
    this.status = status;
  }

  /**
   * A state other than TRANSIENT_FAILURE; its status is OK.
   *
   * @throws IllegalArgumentException if {@code state} is TRANSIENT_FAILURE
   */
  public static ConnectivityStateInfo forNonError(ConnectivityState state) {
    Objects.requireNonNull(state, "state");
    if (state == ConnectivityState.TRANSIENT_FAILURE) {
      throw new IllegalArgumentException(
          "state is TRANSIENT_FAILURE; use forTransientFailure(status)");
    }
    return new ConnectivityStateInfo(state, Status.OK);
  }

  /**
   * TRANSIENT_FAILURE caused by {@code error}.
   *
   * @throws IllegalArgumentException if {@code error} is OK
   */
  public static ConnectivityStateInfo forTransientFailure(Status error) {
    Objects.requireNonNull(error, "error");
    if (error.isOk()) {
      throw new IllegalArgumentException("error must not be OK");
    }
    return new ConnectivityStateInfo(ConnectivityState.TRANSIENT_FAILURE, error);
  }

  /** The state. */
  public ConnectivityState getState() {
    return state;
  }

  /** The error for TRANSIENT_FAILURE; OK for the other states. */
  public Status getStatus() {
    return status;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ConnectivityStateInfo)) {
      return false;
    }
    ConnectivityStateInfo other = (ConnectivityStateInfo) o;
    return state == other.state
        && status.getCode() == other.status.getCode()
        && Objects.equals(status.getDescription(), other.status.getDescription());
  }

  @Override
  public int hashCode() {
    return Objects.hash(state, status.getCode(), status.getDescription());
  }

  @Override
  public String toString() {
    return status.isOk() ? state.toString() : state + "(" + status + ")";
  }
}
