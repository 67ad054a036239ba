package dev.tern.stub;

/**
 * A {@link StreamObserver} the runtime gives the application to send on, with flow control in both
 * directions: outbound through {@link #isReady()} and {@link #setOnReadyHandler}, inbound through
 * {@link #disableAutoRequest()} and {@link #request}.
 *
 * <p>By default the runtime asks for the next inbound message as soon as the previous one was
 * delivered. An application that wants to pace its input disables that and calls {@link #request}
 * itself.
 *
 * <p>Not thread-safe, like {@link StreamObserver}; the configuration methods have further limits on
 * when they may be called, stated by each subclass.
 *
 * @param <V> the type of the values sent
 */
public abstract class CallStreamObserver<V> implements StreamObserver<V> {
  /** For subclasses. */
  protected CallStreamObserver() {}

  /**
   * Whether the transport can take a message now without buffering it locally. Advisory: {@link
   * #onNext} always accepts messages, but a sender that ignores this may buffer without bound.
   */
  public abstract boolean isReady();

  /**
   * Sets the task run whenever {@link #isReady()} may have turned true, on the thread that delivers
   * the call's callbacks. The task should check {@link #isReady()} and send while it is true. There
   * may be spurious calls; there is at most one handler (a later call replaces the earlier one).
   */
  public abstract void setOnReadyHandler(Runnable onReadyHandler);

  /**
   * Stops the runtime from requesting inbound messages automatically; the application then calls
   * {@link #request} for each message (or batch) it is ready to receive. Same as {@link
   * #disableAutoRequest()}; this is the older name.
   */
  public abstract void disableAutoInboundFlowControl();

  /**
   * Stops the runtime from requesting inbound messages automatically, see {@link
   * #disableAutoInboundFlowControl()}. The default implementation calls that method.
   */
  public void disableAutoRequest() {
    disableAutoInboundFlowControl();
  }

  /**
   * Asks for up to {@code count} more inbound messages. Only meaningful once automatic requesting
   * is disabled, otherwise it adds to what the runtime requests.
   *
   * @throws IllegalArgumentException if {@code count} is negative
   */
  public abstract void request(int count);

  /** Turns compression of the following outbound messages on or off (if a compressor is set). */
  public abstract void setMessageCompression(boolean enable);
}
