package dev.tern;

/**
 * One RPC from the client's side: start it, send messages, half-close, receive through a {@link
 * Listener}. Obtained from {@link Channel#newCall}.
 *
 * <p>Threading: the methods of a call are not thread-safe; the application calls them from one
 * thread at a time (any thread). The listener's callbacks never overlap and run on the call's
 * executor (or inline on the transport thread with {@code directExecutor()}).
 *
 * <p>Order: {@link #start} first, then any number of {@link #request} and {@link #sendMessage},
 * then {@link #halfClose}. {@link #cancel} may be called at any time and more than once; after the
 * listener's {@code onClose} nothing else is delivered.
 *
 * <p>DO NOT MOCK: use the in-process transport and a test server instead.
 */
public abstract class ClientCall<ReqT, RespT> {
  /** For subclasses. */
  protected ClientCall() {}

  /**
   * Receives the events of a call. Callbacks of one call never overlap; {@link #onClose} is last.
   */
  public abstract static class Listener<T> {
    /** For subclasses. */
    protected Listener() {}

    /** The server's response headers arrived. Called at most once, before any message. */
    public void onHeaders(Metadata headers) {}

    /** A response message arrived; one call per message requested with {@link #request}. */
    public void onMessage(T message) {}

    /**
     * The call ended with {@code status} and the server's trailers (empty, never null, when there
     * were none). Always called exactly once, last.
     */
    public void onClose(Status status, Metadata trailers) {}

    /**
     * {@link ClientCall#isReady()} may have changed to true: a good time to send more. Not called
     * once the call is half-closed, as nothing more can be sent.
     */
    public void onReady() {}
  }

  /**
   * Starts the call. {@code headers} are sent as request metadata; the call owns them afterwards.
   *
   * @throws IllegalStateException if the call was already started
   */
  public abstract void start(Listener<RespT> responseListener, Metadata headers);

  /**
   * Asks for up to {@code numMessages} more response messages to be delivered to {@link
   * Listener#onMessage}. This drives inbound flow control.
   *
   * @throws IllegalArgumentException if {@code numMessages} is negative
   */
  public abstract void request(int numMessages);

  /**
   * Cancels the call; the listener's {@code onClose} reports CANCELLED with {@code message} as
   * description and {@code cause} as cause. Either may be null, but give at least one. Has no
   * effect if the call already ended.
   */
  public abstract void cancel(String message, Throwable cause);

  /** No more messages will be sent. */
  public abstract void halfClose();

  /** Sends one request message. Flow control: check {@link #isReady()} to avoid buffering. */
  public abstract void sendMessage(ReqT message);

  /**
   * True when the transport can take more messages without buffering them locally. Purely advisory:
   * {@link #sendMessage} always accepts messages.
   */
  public boolean isReady() {
    return true;
  }

  /** Turns compression of the following messages on or off (when a compressor is configured). */
  public void setMessageCompression(boolean enabled) {}

  /** Attributes of the transport that carries this call, once started; empty before. */
  public Attributes getAttributes() {
    return Attributes.EMPTY;
  }
}
