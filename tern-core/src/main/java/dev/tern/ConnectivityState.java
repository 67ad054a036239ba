package dev.tern;

/** The connectivity state of a {@link ManagedChannel}. */
public enum ConnectivityState {
  /** Trying to establish a connection. */
  CONNECTING,
  /** A connection is established and calls go out at once. */
  READY,
  /** The last attempt failed; the channel will try again after a back-off. */
  TRANSIENT_FAILURE,
  /** No connection and no attempt under way; a new call (or a state request) starts one. */
  IDLE,
  /** The channel was shut down; it accepts no new calls. */
  SHUTDOWN
}
