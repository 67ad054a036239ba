package dev.tern;

import java.util.concurrent.TimeUnit;

/**
 * A {@link Channel} with a lifecycle: it owns connections and must be shut down. Thread-safe.
 *
 * <p>{@link #shutdown()} lets calls in flight finish and refuses new ones (they fail UNAVAILABLE);
 * {@link #shutdownNow()} also cancels the calls in flight. The channel is terminated once every
 * call and connection is gone.
 */
public abstract class ManagedChannel extends Channel {
  /** For subclasses. */
  protected ManagedChannel() {}

  /** Starts an orderly shutdown; calls in flight continue, new calls fail UNAVAILABLE. */
  public abstract ManagedChannel shutdown();

  /** Whether {@link #shutdown} or {@link #shutdownNow} was called. */
  public abstract boolean isShutdown();

  /** Whether the channel has shut down and released all its resources. */
  public abstract boolean isTerminated();

  /** Shuts down and cancels all calls in flight with status UNAVAILABLE. */
  public abstract ManagedChannel shutdownNow();

  /**
   * Waits for the channel to terminate, at most {@code timeout}.
   *
   * @return whether it terminated
   */
  public abstract boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException;

  /**
   * The current connectivity state.
   *
   * @param requestConnection if true and the channel is IDLE, start connecting
   */
  public abstract ConnectivityState getState(boolean requestConnection);

  /**
   * Runs {@code callback} once, on the channel's executor, when the state is no longer {@code
   * source} (at once if it already differs).
   */
  public abstract void notifyWhenStateChanged(ConnectivityState source, Runnable callback);

  /**
   * Drops the connections now and enters IDLE, as if the idle timeout had passed. Calls in flight
   * continue on their transports; the next call reconnects.
   */
  public abstract void enterIdle();

  /** Forgets the reconnect back-off so the next attempt happens at once. */
  public void resetConnectBackoff() {}
}
