package dev.tern.stub;

import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.Status;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Delivers the responses of an asynchronous client call to the application's {@link
 * StreamObserver}, requesting more as they are consumed unless the application took over flow
 * control through its {@link ClientRequestStream}.
 *
 * <p>An exception thrown by the observer (or the on-ready handler) cancels the call; the observer
 * then still gets its final {@code onError}, carrying the exception as cause, so no call is left
 * without an end.
 *
 * <p>Thread-safety: the call delivers callbacks one at a time, so the fields need no lock.
 */
final class ResponseObserverListener<ReqT, RespT> extends ClientCall.Listener<RespT> {
  private static final Logger logger = Logger.getLogger(ResponseObserverListener.class.getName());

  private final StreamObserver<RespT> observer;
  private final ClientRequestStream<ReqT> requestStream;
  private boolean messageReceived;

  /** Why this listener cancelled the call; reported instead of the CANCELLED that follows. */
  private Status failure;

  ResponseObserverListener(
      StreamObserver<RespT> observer, ClientRequestStream<ReqT> requestStream) {
    this.observer = observer;
    this.requestStream = requestStream;
  }

  @Override
  public void onMessage(RespT message) {
    if (failure != null) {
      return; // already cancelled; the observer must see nothing more but the error
    }
    if (messageReceived && !requestStream.streamingResponse()) {
      fail(StubStatuses.TOO_MANY_RESPONSES);
      return;
    }
    messageReceived = true;
    try {
      observer.onNext(message);
    } catch (Throwable t) {
      fail(Status.CANCELLED.withDescription("The response observer's onNext threw").withCause(t));
      return;
    }
    if (requestStream.autoRequest() && requestStream.streamingResponse()) {
      requestStream.call().request(1);
    }
  }

  @Override
  public void onReady() {
    Runnable handler = requestStream.onReadyHandler();
    if (handler == null || failure != null) {
      return;
    }
    try {
      handler.run();
    } catch (Throwable t) {
      fail(Status.CANCELLED.withDescription("The onReady handler threw").withCause(t));
    }
  }

  @Override
  public void onClose(Status status, Metadata trailers) {
    if (failure != null) {
      status = failure;
    } else if (status.isOk() && !messageReceived && !requestStream.streamingResponse()) {
      status = StubStatuses.NO_RESPONSE;
    }
    try {
      if (status.isOk()) {
        observer.onCompleted();
      } else {
        observer.onError(status.asRuntimeException(trailers));
      }
    } catch (Throwable t) {
      // The call is over: nothing left to cancel, and the exception must not reach the runtime.
      logger.log(Level.WARNING, "The response observer threw when the call closed", t);
    }
  }

  private void fail(Status status) {
    failure = status;
    requestStream.call().cancel(status.getDescription(), status.getCause());
  }
}
