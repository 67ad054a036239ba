package dev.tern.stub;

import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.internal.HeldWakes;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A client call driven by blocking reads and writes, for any method type: made by {@link
 * ClientCalls#blockingBidiStreamingCall}, {@link ClientCalls#blockingClientStreamingCall}, {@link
 * ClientCalls#blockingV2ServerStreamingCall} and the generated blocking V2 stubs. Cheap to block in
 * on a virtual thread.
 *
 * <p>Flow control both ways: {@link #write} sends only while the call is ready and otherwise waits
 * for the transport to take more; responses are asked for one at a time, the next once {@link
 * #read()} hands one out, so a reader that falls behind slows the server down and at most one
 * unread response is held here.
 *
 * <p>A client-streaming call (one response) is read like a unary one: {@link #read()} hands the
 * response out once the call has closed, with its outcome known, and the call fails {@code
 * UNIMPLEMENTED} if the server sends a second response (the call is then cancelled) or completes
 * {@code OK} without one, as gRPC's status-code table says for a response cardinality violation. A
 * response followed by an error is dropped: the error is what {@code read()} throws.
 *
 * <p>Errors: a call that fails makes {@link #read()} and {@link #hasNext()} throw a {@link
 * StatusException} with its status and trailers, once the responses received before the failure
 * have been read; {@link #write} returns false once the call has ended. Interrupting a thread
 * waiting in {@code read}, {@code hasNext} or {@code write} cancels the call ({@code CANCELLED},
 * "Thread interrupted") and throws {@link InterruptedException}, which clears the thread's
 * interrupt flag as usual; a thread already interrupted when it would wait does the same at once.
 *
 * <p>Thread-safe: one thread may read while another writes; each response goes to exactly one
 * {@code read}. Every mutable field is guarded by {@code lock}, and every use of the {@link
 * ClientCall} happens under it. (No {@code @GuardedBy} here: generated stubs name this class, and
 * javac warns about an annotation whose class the application's compile does not have.)
 *
 * @param <ReqT> the request type
 * @param <RespT> the response type
 */
public final class BlockingClientCall<ReqT, RespT> {
  private final ClientCall<ReqT, RespT> call;

  /** Whether the method sends exactly one response (client-streaming). */
  private final boolean singleResponse;

  private final ReentrantLock lock = new ReentrantLock();

  /** Signalled on every event: a response, readiness, the close. */
  private final Condition changed = lock.newCondition();

  private final ArrayDeque<RespT> responses = new ArrayDeque<>(2);

  private boolean halfClosed;

  /** The call's final status, once it closed; null while open. */
  private Status closedStatus;

  private Metadata trailers;

  /** Whether a response arrived (single-response calls only). */
  private boolean responseReceived;

  /** Why this class cancelled the call; reported instead of the CANCELLED that follows. */
  private Status failure;

  private BlockingClientCall(ClientCall<ReqT, RespT> call, boolean singleResponse) {
    this.call = call;
    this.singleResponse = singleResponse;
  }

  /**
   * Starts {@code call}, asking for the first response; for a method with a single response ({@code
   * singleResponse}), for two, so that a second one is noticed.
   */
  static <ReqT, RespT> BlockingClientCall<ReqT, RespT> start(
      ClientCall<ReqT, RespT> call, boolean singleResponse) {
    BlockingClientCall<ReqT, RespT> blocking = new BlockingClientCall<>(call, singleResponse);
    blocking.lock.lock();
    try {
      call.start(blocking.new Listener(), new Metadata());
      call.request(singleResponse ? 2 : 1);
    } finally {
      blocking.lock.unlock();
    }
    return blocking;
  }

  /**
   * The underlying call, for {@link ClientCalls} to send the request of a server-streaming call.
   */
  ClientCall<ReqT, RespT> clientCall() {
    return call;
  }

  /**
   * Waits for the next response.
   *
   * @return the next response, or null if the call completed {@code OK} and every response was read
   * @throws StatusException with the call's status and trailers if it failed (after the responses
   *     received before the failure were read)
   * @throws InterruptedException if the thread was interrupted while waiting; the call is cancelled
   */
  public RespT read() throws InterruptedException, StatusException {
    try {
      return read(false, 0);
    } catch (TimeoutException e) {
      throw new AssertionError("waited without a timeout", e);
    }
  }

  /**
   * As {@link #read()}, waiting at most {@code timeout}.
   *
   * @throws TimeoutException if no response came and the call did not end in time; the call goes on
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  public RespT read(long timeout, TimeUnit unit)
      throws InterruptedException, TimeoutException, StatusException {
    return read(true, toNanos(timeout, unit));
  }

  private RespT read(boolean timed, long nanos)
      throws InterruptedException, TimeoutException, StatusException {
    lock.lock();
    try {
      if (!awaitResponse(timed, nanos)) {
        return null;
      }
      RespT response = responses.poll();
      if (closedStatus == null && !singleResponse) {
        call.request(1);
      }
      return response;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a response can be read or the call has ended.
   *
   * @return true if {@link #read()} would return a response at once, false if the call completed
   *     {@code OK} and every response was read
   * @throws StatusException as {@link #read()}
   * @throws InterruptedException as {@link #read()}
   */
  public boolean hasNext() throws InterruptedException, StatusException {
    lock.lock();
    try {
      return awaitResponse(false, 0);
    } catch (TimeoutException e) {
      throw new AssertionError("waited without a timeout", e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Called with the lock held: true once a response is buffered, false at the end of an OK call.
   */
  private boolean awaitResponse(boolean timed, long nanos)
      throws InterruptedException, TimeoutException, StatusException {
    // A single response waits for the close, so that a second one fails the call before the
    // caller (who reads only once) could take the first as the answer.
    while (responses.isEmpty() || (singleResponse && closedStatus == null)) {
      if (closedStatus != null) {
        if (closedStatus.isOk()) {
          return false;
        }
        throw closedStatus.asException(trailers);
      }
      nanos = await(timed, nanos);
    }
    return true;
  }

  /**
   * Sends {@code request}, first waiting while the call is not ready to take it.
   *
   * @return true if sent, false if the call had already ended (read its status with {@link #read()}
   *     or {@link #getClosedStatus()})
   * @throws NullPointerException if {@code request} is null
   * @throws IllegalStateException if the call was half-closed
   * @throws InterruptedException if the thread was interrupted while waiting; the call is cancelled
   */
  public boolean write(ReqT request) throws InterruptedException {
    try {
      return write(request, false, 0);
    } catch (TimeoutException e) {
      throw new AssertionError("waited without a timeout", e);
    }
  }

  /**
   * As {@link #write(Object)}, waiting at most {@code timeout} for the call to become ready.
   *
   * @throws TimeoutException if the call was not ready in time; nothing was sent and the call goes
   *     on
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  public boolean write(ReqT request, long timeout, TimeUnit unit)
      throws InterruptedException, TimeoutException {
    return write(request, true, toNanos(timeout, unit));
  }

  private boolean write(ReqT request, boolean timed, long nanos)
      throws InterruptedException, TimeoutException {
    Objects.requireNonNull(request, "request");
    lock.lock();
    try {
      while (true) {
        if (halfClosed) {
          throw new IllegalStateException("The call was half-closed: nothing more can be written");
        }
        if (closedStatus != null) {
          return false;
        }
        if (call.isReady()) {
          call.sendMessage(request);
          return true;
        }
        nanos = await(timed, nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Tells the server that no more requests will be written. Does nothing if the call already ended.
   *
   * @throws IllegalStateException if the call was already half-closed
   */
  public void halfClose() {
    lock.lock();
    try {
      if (halfClosed) {
        throw new IllegalStateException("The call was already half-closed");
      }
      halfClosed = true;
      if (closedStatus == null) {
        call.halfClose();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cancels the call: the server sees it cancelled, and reads throw {@code CANCELLED} with {@code
   * message} and {@code cause}. Does nothing if the call already ended. At least one of {@code
   * message} and {@code cause} should be given.
   */
  public void cancel(String message, Throwable cause) {
    lock.lock();
    try {
      call.cancel(message, cause);
    } finally {
      lock.unlock();
    }
  }

  /** Returns the status the call closed with, or null while it is still open. */
  public Status getClosedStatus() {
    lock.lock();
    try {
      return closedStatus;
    } finally {
      lock.unlock();
    }
  }

  /** Whether a {@link #write} would send at once: the call is open, not half-closed and ready. */
  public boolean isWriteReady() {
    lock.lock();
    try {
      return closedStatus == null && !halfClosed && call.isReady();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether a {@link #read()} would return at once: a response is buffered (for a client-streaming
   * call: and the call ended) or the call ended.
   */
  public boolean isReadReady() {
    lock.lock();
    try {
      return closedStatus != null || (!singleResponse && !responses.isEmpty());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Called with the lock held: waits for the next event, or up to {@code nanos} if {@code timed};
   * returns the time left. An interrupt cancels the call.
   */
  private long await(boolean timed, long nanos) throws InterruptedException, TimeoutException {
    // What this thread wrote (the call's messages) leaves before it waits for the answer.
    HeldWakes.wakeAll();
    try {
      if (!timed) {
        changed.await();
        return 0;
      }
      if (nanos <= 0) {
        throw new TimeoutException("Timed out waiting for the call");
      }
      return changed.awaitNanos(nanos);
    } catch (InterruptedException e) {
      call.cancel("Thread interrupted", e);
      throw e;
    }
  }

  private static long toNanos(long timeout, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (timeout < 0) {
      throw new IllegalArgumentException("timeout must not be negative: " + timeout);
    }
    return unit.toNanos(timeout);
  }

  /** The call's callbacks; they never block (they only record and signal). */
  private final class Listener extends ClientCall.Listener<RespT> {
    @Override
    public void onMessage(RespT message) {
      lock.lock();
      try {
        if (failure != null) {
          return;
        }
        if (singleResponse) {
          if (responseReceived) {
            failure = StubStatuses.TOO_MANY_RESPONSES;
            responses.clear();
            call.cancel(failure.getDescription(), null);
            return; // onClose (with CANCELLED, reported as the failure) wakes the readers
          }
          responseReceived = true;
        }
        responses.add(message);
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      lock.lock();
      try {
        if (failure != null) {
          status = failure;
        } else if (singleResponse && status.isOk() && !responseReceived) {
          status = StubStatuses.NO_RESPONSE;
        }
        if (singleResponse && !status.isOk()) {
          responses.clear(); // the call failed: no answer to hand out
        }
        closedStatus = status;
        BlockingClientCall.this.trailers = trailers;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void onReady() {
      lock.lock();
      try {
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }
}
