package dev.tern.stub;

import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.NonBlockingScope;
import dev.tern.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of a unary call: completes with the response, or exceptionally with a {@link
 * dev.tern.StatusRuntimeException} carrying the status and trailers. {@link #cancel} cancels the
 * RPC.
 *
 * <p>Thread-safe, as every {@link CompletableFuture}; {@link #cancel} may be called from any
 * thread.
 */
final class UnaryResponseFuture<RespT> extends CompletableFuture<RespT> {
  private final ClientCall<?, RespT> call;

  UnaryResponseFuture(ClientCall<?, RespT> call) {
    this.call = call;
  }

  /** The listener to start the call with; it completes this future. */
  ClientCall.Listener<RespT> listener() {
    return new SingleResponseListener<RespT>(call) {
      @Override
      void onSuccess(RespT value) {
        complete(value);
      }

      @Override
      void onFailure(Status status, Metadata trailers) {
        completeExceptionally(status.asRuntimeException(trailers));
      }
    };
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalStateException if it would wait on the transport thread of a non-blocking method
   */
  @Override
  public RespT get() throws InterruptedException, ExecutionException {
    checkMayWait("get()");
    return super.get();
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalStateException if it would wait on the transport thread of a non-blocking method
   */
  @Override
  public RespT get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    checkMayWait("get(timeout)");
    return super.get(timeout, unit);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalStateException if it would wait on the transport thread of a non-blocking method
   */
  @Override
  public RespT join() {
    checkMayWait("join()");
    return super.join();
  }

  /** A completed future never waits, so only a pending one is refused. */
  private void checkMayWait(String wait) {
    if (!isDone()) {
      NonBlockingScope.checkMayBlock("the call future's " + wait);
    }
  }

  /**
   * Cancels the future and, if it was still pending, the RPC: the server sees the call cancelled.
   * {@code mayInterruptIfRunning} has no effect, as nothing runs on behalf of the future.
   */
  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    if (cancelled) {
      call.cancel("The call's future was cancelled", null);
    }
    return cancelled;
  }

  @Override
  public String toString() {
    return "UnaryResponseFuture[" + call + ", " + super.toString() + "]";
  }
}
