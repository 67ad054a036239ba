package dev.tern.stub;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.Status;

/**
 * The response side of a server call as the service method sees it: adapts a {@link ServerCall} to
 * a {@link ServerCallStreamObserver}, and holds the handlers and flow-control setting the request
 * listeners in {@link ServerCalls} apply.
 *
 * <p>What is enforced: the handler setters and {@link #disableAutoInboundFlowControl} throw {@link
 * IllegalStateException} once the service method returned ({@link #freeze()}); {@link #onNext}
 * after {@link #onCompleted} or {@link #onError} throws {@link IllegalStateException}; on a
 * cancelled server-streaming or bidi call, {@link #onNext} throws {@code CANCELLED} unless an
 * on-cancel handler was set (then it is ignored). On a cancelled unary or client-streaming call the
 * single response is dropped silently, since the method is about to end anyway. {@link
 * #onCompleted} on a unary or client-streaming call that sent no response closes it {@code
 * UNIMPLEMENTED} instead of {@code OK}.
 *
 * <p>Thread-safety: the sending methods are not thread-safe (one thread at a time, any thread);
 * {@link #isCancelled()} may be called from any thread. The handlers are written while the service
 * method runs and read by later callbacks of the same call, which the server runtime serializes.
 */
final class ServerResponseStream<ReqT, RespT> extends ServerCallStreamObserver<RespT> {
  private final ServerCall<ReqT, RespT> call;
  private final boolean streamingResponse;

  private boolean frozen;
  private boolean autoRequest = true;
  private Runnable onReadyHandler;
  private Runnable onCancelHandler;
  private Runnable onCloseHandler;
  private boolean completed;
  private boolean aborted;
  private boolean headersSent;

  ServerResponseStream(ServerCall<ReqT, RespT> call) {
    this.call = call;
    this.streamingResponse = !call.getMethodDescriptor().getType().serverSendsOneMessage();
  }

  /** Ends the configuration phase: the service method returned. */
  void freeze() {
    frozen = true;
  }

  ServerCall<ReqT, RespT> call() {
    return call;
  }

  boolean autoRequest() {
    return autoRequest;
  }

  Runnable onReadyHandler() {
    return onReadyHandler;
  }

  Runnable onCancelHandler() {
    return onCancelHandler;
  }

  Runnable onCloseHandler() {
    return onCloseHandler;
  }

  @Override
  public void onNext(RespT response) {
    if (call.isCancelled()) {
      if (streamingResponse && onCancelHandler == null) {
        throw Status.CANCELLED
            .withDescription(
                "call already cancelled; use ServerCallStreamObserver.setOnCancelHandler() to"
                    + " handle cancellation instead of this exception")
            .asRuntimeException();
      }
      return;
    }
    checkOpen();
    if (!headersSent) {
      // Explicitly, so that interceptors overriding sendHeaders can add response headers.
      headersSent = true;
      call.sendHeaders(new Metadata());
    }
    call.sendMessage(response);
  }

  @Override
  public void onError(Throwable t) {
    checkOpen();
    aborted = true;
    if (call.isCancelled()) {
      return; // the client is gone: there is nobody to tell
    }
    Metadata trailers = Status.trailersFromThrowable(t);
    call.close(Status.fromThrowable(t), trailers != null ? trailers : new Metadata());
  }

  @Override
  public void onCompleted() {
    checkOpen();
    completed = true;
    if (call.isCancelled()) {
      return; // the client is gone: there is nobody to tell
    }
    if (!streamingResponse && !headersSent) {
      // The one response never came (onNext sends headers first): an OK would leave every client
      // to find that out; the code is the one a client gives such an OK (UNIMPLEMENTED).
      call.close(
          StubStatuses.completedWithoutResponse(call.getMethodDescriptor().getFullMethodName()),
          new Metadata());
      return;
    }
    call.close(Status.OK, new Metadata());
  }

  private void checkOpen() {
    if (aborted) {
      throw new IllegalStateException("Stream was terminated by error, no further calls allowed");
    }
    if (completed) {
      throw new IllegalStateException("Stream is already completed, no further calls allowed");
    }
  }

  @Override
  public boolean isCancelled() {
    return call.isCancelled();
  }

  @Override
  public boolean isReady() {
    return call.isReady();
  }

  @Override
  public void setOnReadyHandler(Runnable onReadyHandler) {
    checkNotFrozen("setOnReadyHandler");
    this.onReadyHandler = onReadyHandler;
  }

  @Override
  public void setOnCancelHandler(Runnable onCancelHandler) {
    checkNotFrozen("setOnCancelHandler");
    this.onCancelHandler = onCancelHandler;
  }

  @Override
  public void setOnCloseHandler(Runnable onCloseHandler) {
    checkNotFrozen("setOnCloseHandler");
    this.onCloseHandler = onCloseHandler;
  }

  @Override
  public void disableAutoInboundFlowControl() {
    checkNotFrozen("disableAutoInboundFlowControl");
    autoRequest = false;
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
  public void setCompression(String compression) {
    call.setCompression(compression);
  }

  private void checkNotFrozen(String method) {
    if (frozen) {
      throw new IllegalStateException(
          method + " may only be called while the service method runs, before it returns");
    }
  }

  @Override
  public String toString() {
    return "ServerResponseStream[" + call.getMethodDescriptor().getFullMethodName() + "]";
  }
}
