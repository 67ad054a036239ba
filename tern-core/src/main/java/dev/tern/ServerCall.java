package dev.tern;

/**
 * One RPC from the server's side, handed to a {@link ServerCallHandler}. The handler reads the
 * request through the {@link Listener} it returns and answers through this call.
 *
 * <p>Threading: the methods are not thread-safe; call them from one thread at a time (any thread).
 * Listener callbacks never overlap and run on the server's executor (or on the transport thread
 * with {@code directExecutor()}).
 *
 * <p>Order: {@link #sendHeaders} at most once, then any number of {@link #sendMessage}, then {@link
 * #close} exactly once. Headers are sent implicitly with the first message if not sent.
 */
public abstract class ServerCall<ReqT, RespT> {
  /** For subclasses. */
  protected ServerCall() {}

  /** Receives the events of the call. Callbacks never overlap. */
  public abstract static class Listener<ReqT> {
    /** For subclasses. */
    protected Listener() {}

    /** A request message arrived (one per message requested with {@link #request}). */
    public void onMessage(ReqT message) {}

    /** The client will send no more messages. */
    public void onHalfClose() {}

    /**
     * The call was cancelled (by the client, a deadline, or a lost connection) before it completed.
     * Last callback; sending more has no effect. The call's {@link Context} is cancelled as well.
     */
    public void onCancel() {}

    /** The call completed: the status was sent. Last callback. */
    public void onComplete() {}

    /** {@link ServerCall#isReady()} may have changed to true. */
    public void onReady() {}
  }

  /** Asks for up to {@code numMessages} more request messages. */
  public abstract void request(int numMessages);

  /** Sends the response headers. At most once, before any message. */
  public abstract void sendHeaders(Metadata headers);

  /** Sends one response message. */
  public abstract void sendMessage(RespT message);

  /**
   * True when the transport can take more messages without buffering them locally. Advisory: {@link
   * #sendMessage} always accepts messages.
   */
  public boolean isReady() {
    return true;
  }

  /**
   * Ends the call with {@code status} and {@code trailers}. Exactly once; later sends are ignored.
   */
  public abstract void close(Status status, Metadata trailers);

  /** Whether the call was cancelled by the client, a deadline or the transport. */
  public abstract boolean isCancelled();

  /** Turns compression of the following messages on or off. */
  public void setMessageCompression(boolean enabled) {}

  /**
   * Compresses responses with the named compressor (e.g. "gzip"), if the client accepts it. Call
   * before {@link #sendHeaders}.
   *
   * @throws IllegalArgumentException if the compressor is not registered
   */
  public void setCompression(String compressorName) {}

  /** Transport attributes (remote address, TLS session, what transport filters added). */
  public Attributes getAttributes() {
    return Attributes.EMPTY;
  }

  /** The {@code :authority} the client sent, or null. */
  public String getAuthority() {
    return null;
  }

  /** The method being called. */
  public abstract MethodDescriptor<ReqT, RespT> getMethodDescriptor();
}
