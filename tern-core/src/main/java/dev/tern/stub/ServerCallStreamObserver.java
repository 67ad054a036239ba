package dev.tern.stub;

/**
 * The response side of a server call, as seen by a service method: send responses with {@link
 * #onNext}, end the call with {@link #onCompleted} or {@link #onError}. Service methods get one by
 * casting the {@code StreamObserver} they were given.
 *
 * <p>When things may be called: {@link #setOnReadyHandler}, {@link #setOnCancelHandler}, {@link
 * #setOnCloseHandler} and {@link #disableAutoInboundFlowControl} only while the service method runs
 * (before it returns); afterwards they throw {@link IllegalStateException}. The other methods may
 * be called at any time.
 *
 * <p>Thread-safety: send from one thread at a time (any thread); {@link #isCancelled()} may be
 * called from any thread. The handlers run on the thread that delivers the call's callbacks.
 *
 * @param <RespT> the response type
 */
public abstract class ServerCallStreamObserver<RespT> extends CallStreamObserver<RespT> {
  /** For subclasses. */
  protected ServerCallStreamObserver() {}

  /**
   * Whether the call was cancelled (by the client, a deadline or the transport). Once it is, sent
   * messages go nowhere.
   */
  public abstract boolean isCancelled();

  /**
   * Sets the task to run when the call is cancelled, on the thread that delivers the call's
   * callbacks. Setting one also means the application handles cancellation itself: {@link #onNext}
   * on a cancelled streaming call is then silently ignored instead of throwing.
   *
   * @throws IllegalStateException after the service method returned
   */
  public abstract void setOnCancelHandler(Runnable onCancelHandler);

  /**
   * Sets the task to run when the call completed normally: its status was handed to the transport.
   * It is not run if the call is cancelled instead.
   *
   * @throws IllegalStateException after the service method returned
   */
  public abstract void setOnCloseHandler(Runnable onCloseHandler);

  /**
   * Compresses responses with the named compressor (for example {@code "gzip"}) if the client
   * accepts it. Call before the first {@link #onNext}.
   *
   * @throws IllegalArgumentException if no compressor of that name is registered
   */
  public abstract void setCompression(String compression);
}
