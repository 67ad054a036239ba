package dev.tern.conformance;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Status;
import dev.tern.conformance.v1.ConformancePayload;
import dev.tern.stub.ClientCallStreamObserver;
import dev.tern.stub.ClientResponseObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Records what one call of the client under test receives: each response's payload, and how the
 * call ended. Cancels the call itself once it has received the number of responses the test case
 * asks for ({@code cancel.after_num_responses}), and lets the thread driving the call wait for a
 * number of responses (full-duplex streams) or for the end.
 *
 * <p>Thread-safety: the stub calls {@code onNext}, {@code onError} and {@code onCompleted} one at a
 * time on the channel's executor while the driving thread waits; this object's monitor guards the
 * payloads and the outcome, and is never held while calling into the call.
 */
final class ResponseRecorder<ReqT, RespT> implements ClientResponseObserver<ReqT, RespT> {
  private final Function<RespT, ConformancePayload> payloadOf;

  /** Cancel after this many responses; 0 for never. */
  private final int cancelAfterResponses;

  private volatile ClientCallStreamObserver<ReqT> call;

  @GuardedBy("this")
  private final List<ConformancePayload> payloads = new ArrayList<>();

  /** How the call ended; null while it runs. */
  @GuardedBy("this")
  private Status outcome;

  ResponseRecorder(Function<RespT, ConformancePayload> payloadOf, int cancelAfterResponses) {
    this.payloadOf = payloadOf;
    this.cancelAfterResponses = cancelAfterResponses;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<ReqT> requestStream) {
    this.call = requestStream;
  }

  /** Cancels the call (the test case asked for it); the call then ends CANCELLED. */
  void cancel(String why) {
    call.cancel(why, null);
  }

  @Override
  public void onNext(RespT response) {
    int received;
    synchronized (this) {
      payloads.add(payloadOf.apply(response));
      received = payloads.size();
      notifyAll();
    }
    if (received == cancelAfterResponses) {
      cancel("the test case cancels after " + received + " responses");
    }
  }

  @Override
  public void onError(Throwable t) {
    end(Status.fromThrowable(t));
  }

  @Override
  public void onCompleted() {
    end(Status.OK);
  }

  private synchronized void end(Status status) {
    if (outcome == null) {
      outcome = status;
    }
    notifyAll();
  }

  /** Whether the call has ended. */
  synchronized boolean ended() {
    return outcome != null;
  }

  /**
   * Waits until {@code count} responses arrived or the call ended, at most {@code timeoutMillis}.
   *
   * @return whether either happened in time
   */
  synchronized boolean awaitResponses(int count, long timeoutMillis) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (payloads.size() < count && outcome == null) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /**
   * Waits for the end of the call, at most {@code timeoutMillis}, and returns how it ended, or null
   * if it had not ended in time.
   */
  synchronized Status awaitEnd(long timeoutMillis) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (outcome == null) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return outcome;
  }

  /** The payloads received so far, in order. */
  synchronized List<ConformancePayload> payloads() {
    return new ArrayList<>(payloads);
  }
}
