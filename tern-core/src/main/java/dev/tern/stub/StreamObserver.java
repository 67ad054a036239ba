package dev.tern.stub;

/**
 * Receives a stream of values: any number of {@link #onNext} calls, then at most one of {@link
 * #onError} or {@link #onCompleted}. The same interface is used in both directions: the runtime
 * calls the observer an application gives it (responses on a client, requests on a server), and the
 * application calls the observer the runtime gives it to send.
 *
 * <p>Implementations are not required to be thread-safe: the runtime calls an application's
 * observer from one thread at a time, and an application must likewise not call a runtime-provided
 * observer from several threads at once (synchronize externally if several threads send).
 *
 * @param <V> the type of the values
 */
public interface StreamObserver<V> {
  /**
   * Receives one value. May be called any number of times, never after {@link #onError} or {@link
   * #onCompleted}.
   */
  void onNext(V value);

  /**
   * Ends the stream with an error; nothing is called after it. A {@link
   * dev.tern.StatusRuntimeException} or {@link dev.tern.StatusException} carries the status (and
   * trailers) to send or that was received; any other throwable is reported as {@code UNKNOWN}.
   */
  void onError(Throwable t);

  /** Ends the stream successfully; nothing is called after it. */
  void onCompleted();
}
