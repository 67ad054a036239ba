package dev.tern.stub;

import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.ThreadlessExecutor;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The responses of a blocking server-streaming call, pulled one at a time: the call is asked for
 * one message when it starts and for one more each time {@link #next()} hands one out, so a slow
 * consumer slows the server down instead of buffering without bound.
 *
 * <p>The call's callbacks go through a {@link ThreadlessExecutor} that the consuming thread drains
 * inside {@link #hasNext()}; no other thread touches the buffer until the call has closed, at which
 * point the executor is shut down.
 *
 * <p>Not thread-safe: consume from one thread at a time.
 */
final class BlockingResponseIterator<RespT> implements Iterator<RespT> {
  private final ThreadlessExecutor executor;
  private final ArrayDeque<RespT> buffer = new ArrayDeque<>(2);
  private final ClientCall<?, RespT> call;

  /** Set once the call closed; then the buffer holds all it will ever get. */
  private boolean closed;

  /** The failure to throw once the buffer is empty, or null if the call succeeded (or is open). */
  private StatusRuntimeException failure;

  BlockingResponseIterator(ClientCall<?, RespT> call, ThreadlessExecutor executor) {
    this.call = call;
    this.executor = executor;
  }

  /** Returns the listener to start the call with. */
  ClientCall.Listener<RespT> listener() {
    return new ClientCall.Listener<RespT>() {
      @Override
      public void onMessage(RespT message) {
        buffer.add(message);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        if (!status.isOk()) {
          failure = status.asRuntimeException(trailers);
        }
        closed = true;
        // Nothing follows onClose: later executions (there are none) would run inline.
        executor.shutdown();
      }
    };
  }

  /**
   * Waits until a response is available or the call has ended.
   *
   * @throws StatusRuntimeException with the call's status if it failed and every response before
   *     the failure was consumed; {@code CANCELLED} if the thread was interrupted while waiting
   *     (the call is then cancelled and the interrupt flag set again)
   */
  @Override
  public boolean hasNext() {
    InterruptedException interruption = null;
    // After an interrupt, keep draining until the cancellation's onClose has run: afterwards
    // nothing can touch the buffer from another thread.
    while (!closed && (buffer.isEmpty() || interruption != null)) {
      try {
        executor.waitAndDrain();
      } catch (InterruptedException e) {
        if (interruption == null) {
          interruption = e;
          call.cancel("Thread interrupted", e);
        }
      }
    }
    if (interruption != null) {
      buffer.clear(); // responses that raced with the cancellation are dropped
      failure =
          Status.CANCELLED
              .withDescription("Thread interrupted")
              .withCause(interruption)
              .asRuntimeException();
      Thread.currentThread().interrupt();
    }
    if (!buffer.isEmpty()) {
      return true;
    }
    if (failure != null) {
      // A fresh exception, so that its stack trace shows the consumer's code.
      throw new StatusRuntimeException(failure.getStatus(), failure.getTrailers());
    }
    return false;
  }

  /**
   * Returns the next response and asks the server for one more.
   *
   * @throws NoSuchElementException if the call completed successfully and every response was
   *     consumed
   * @throws StatusRuntimeException as {@link #hasNext()}
   */
  @Override
  public RespT next() {
    if (!hasNext()) {
      throw new NoSuchElementException("The call completed and all responses were consumed");
    }
    RespT message = buffer.poll();
    if (!closed) {
      call.request(1);
    }
    return message;
  }
}
