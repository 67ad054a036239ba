package dev.tern.stub;

/**
 * The request side of a client call, as seen by the application: send requests with {@link
 * #onNext}, finish with {@link #onCompleted}, or abort the call with {@link #cancel} or {@link
 * #onError}.
 *
 * <p>Obtained from {@link ClientResponseObserver#beforeStart}, or returned by the client-streaming
 * and bidi-streaming methods of {@link ClientCalls}. The configuration methods ({@link
 * #setOnReadyHandler}, {@link #disableAutoInboundFlowControl}, {@link
 * #disableAutoRequestWithInitialRequest}) may only be called within {@link
 * ClientResponseObserver#beforeStart}; afterwards they throw {@link IllegalStateException}.
 *
 * <p>Not thread-safe: call it from one thread at a time.
 *
 * @param <ReqT> the request type
 */
public abstract class ClientCallStreamObserver<ReqT> extends CallStreamObserver<ReqT> {
  /** For subclasses. */
  protected ClientCallStreamObserver() {}

  /**
   * Cancels the call; the response observer's {@code onError} then receives {@code CANCELLED} with
   * {@code message} and {@code cause} (give at least one). Has no effect once the call ended.
   */
  public abstract void cancel(String message, Throwable cause);

  /**
   * Disables automatic inbound flow control and asks for {@code initialRequest} responses when the
   * call starts (zero for none); the application requests the rest with {@link #request}. Only
   * within {@link ClientResponseObserver#beforeStart}.
   *
   * @throws IllegalArgumentException if {@code initialRequest} is negative
   * @throws IllegalStateException if the call has already started
   */
  public abstract void disableAutoRequestWithInitialRequest(int initialRequest);
}
