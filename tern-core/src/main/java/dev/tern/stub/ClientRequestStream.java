package dev.tern.stub;

import dev.tern.ClientCall;
import java.util.Objects;

/**
 * The request side of an asynchronous client call: adapts a started {@link ClientCall} to the
 * {@link ClientCallStreamObserver} the application sends on, and holds the flow-control settings
 * that {@link ResponseObserverListener} applies to the response side.
 *
 * <p>Thread-safety: not thread-safe, like {@link ClientCall}; the application uses it from one
 * thread at a time. The settings are written only before the call starts ({@link #freeze()}), so
 * starting the call publishes them to the threads that deliver its callbacks.
 */
final class ClientRequestStream<ReqT> extends ClientCallStreamObserver<ReqT> {
  private final ClientCall<ReqT, ?> call;
  private final boolean streamingResponse;

  private boolean frozen;
  private boolean autoRequest = true;
  private int initialRequest;
  private Runnable onReadyHandler;
  private boolean completed;
  private boolean aborted;

  ClientRequestStream(ClientCall<ReqT, ?> call, boolean streamingResponse) {
    this.call = call;
    this.streamingResponse = streamingResponse;
  }

  /** Ends the configuration phase: the call is about to start. */
  void freeze() {
    frozen = true;
  }

  ClientCall<ReqT, ?> call() {
    return call;
  }

  boolean streamingResponse() {
    return streamingResponse;
  }

  boolean autoRequest() {
    return autoRequest;
  }

  Runnable onReadyHandler() {
    return onReadyHandler;
  }

  /**
   * How many responses to request when the call starts. Automatically: one for a streaming
   * response; two for a single response, so that a misbehaving server sending a second one is
   * noticed instead of leaving it unread.
   */
  int initialRequest() {
    if (autoRequest) {
      return streamingResponse ? 1 : 2;
    }
    return initialRequest;
  }

  @Override
  public void onNext(ReqT value) {
    if (aborted) {
      throw new IllegalStateException("Stream was terminated by error, no further calls allowed");
    }
    if (completed) {
      throw new IllegalStateException("Stream is already completed, no further calls allowed");
    }
    call.sendMessage(value);
  }

  @Override
  public void onError(Throwable t) {
    call.cancel("Cancelled by client with StreamObserver.onError()", t);
    aborted = true;
  }

  @Override
  public void onCompleted() {
    if (aborted) {
      throw new IllegalStateException("Stream was terminated by error, no further calls allowed");
    }
    if (completed) {
      throw new IllegalStateException("Stream is already completed, no further calls allowed");
    }
    call.halfClose();
    completed = true;
  }

  @Override
  public boolean isReady() {
    return call.isReady();
  }

  @Override
  public void setOnReadyHandler(Runnable onReadyHandler) {
    checkNotStarted("setOnReadyHandler");
    this.onReadyHandler = onReadyHandler;
  }

  @Override
  public void disableAutoInboundFlowControl() {
    disableAutoRequestWithInitialRequest(1);
  }

  @Override
  public void disableAutoRequestWithInitialRequest(int initialRequest) {
    checkNotStarted("disableAutoRequestWithInitialRequest");
    if (initialRequest < 0) {
      throw new IllegalArgumentException("initialRequest must be >= 0, was " + initialRequest);
    }
    this.autoRequest = false;
    this.initialRequest = initialRequest;
  }

  @Override
  public void request(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("count must be >= 0, was " + count);
    }
    call.request(count);
  }

  @Override
  public void setMessageCompression(boolean enable) {
    call.setMessageCompression(enable);
  }

  @Override
  public void cancel(String message, Throwable cause) {
    if (message == null && cause == null) {
      message = "Cancelled by the client without a reason";
    }
    call.cancel(message, cause);
  }

  private void checkNotStarted(String method) {
    if (frozen) {
      throw new IllegalStateException(
          method
              + " may only be called before the call starts, in ClientResponseObserver"
              + ".beforeStart()");
    }
  }

  @Override
  public String toString() {
    return "ClientRequestStream[" + Objects.toString(call) + "]";
  }
}
