package dev.tern.stub;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Context;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.internal.server.CallbacksNeverBlock;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs one blocking service method per call on a thread from {@code executor}; the behaviour is
 * documented on {@link BlockingServerCalls}.
 *
 * <p>Immutable; thread-safe.
 */
final class BlockingServerCallHandler<ReqT, RespT>
    implements ServerCallHandler<ReqT, RespT>, CallbacksNeverBlock {
  private static final Logger logger = Logger.getLogger(BlockingServerCalls.class.getName());

  /** Two, so that a client sending a second request to a unary method is noticed. */
  private static final int SINGLE_REQUESTS = 2;

  /** The method, in one shape for all four types. */
  @FunctionalInterface
  interface Body<ReqT, RespT> {
    /**
     * Runs the method; {@code request} is null for streaming requests. Returns the single response,
     * or null for streaming responses.
     */
    RespT run(ReqT request, Stream<ReqT, RespT> stream) throws Exception;
  }

  private final Executor executor;
  private final boolean singleRequest;
  private final boolean singleResponse;
  private final Body<ReqT, RespT> body;

  BlockingServerCallHandler(
      Executor executor, boolean singleRequest, boolean singleResponse, Body<ReqT, RespT> body) {
    this.executor = Objects.requireNonNull(executor, "executor");
    this.singleRequest = singleRequest;
    this.singleResponse = singleResponse;
    this.body = body;
  }

  @Override
  public ServerCall.Listener<ReqT> startCall(ServerCall<ReqT, RespT> call, Metadata headers) {
    MethodDescriptor<ReqT, RespT> descriptor = call.getMethodDescriptor();
    if (descriptor.getType().clientSendsOneMessage() != singleRequest
        || descriptor.getType().serverSendsOneMessage() != singleResponse) {
      throw new IllegalArgumentException(
          "A blocking handler of another method type was registered for "
              + descriptor.getFullMethodName()
              + ", a "
              + descriptor.getType()
              + " method");
    }
    Stream<ReqT, RespT> stream = new Stream<>(this, call, Context.current());
    if (singleRequest) {
      call.request(SINGLE_REQUESTS);
    } else {
      stream.dispatch(null);
    }
    return stream.listener();
  }

  /**
   * One call's state, shared by the server runtime's callbacks (serialized, on the transport's
   * thread: see {@link CallbacksNeverBlock}; on the server's executor when interceptors wrap the
   * handler) and the method's thread, or any thread it hands the reader or writer to: every field
   * is guarded by {@code lock}, and every use of the {@link ServerCall} happens under it.
   */
  static final class Stream<ReqT, RespT>
      implements BlockingServerReader<ReqT>, BlockingServerWriter<RespT> {
    private final BlockingServerCallHandler<ReqT, RespT> handler;
    private final ServerCall<ReqT, RespT> call;
    private final Context context;
    private final ReentrantLock lock = new ReentrantLock();

    /** Signalled on every event: a request, half-close, readiness, cancellation. */
    private final Condition changed = lock.newCondition();

    @GuardedBy("lock")
    private final ArrayDeque<ReqT> requests = new ArrayDeque<>(2);

    @GuardedBy("lock")
    private boolean requestPending;

    @GuardedBy("lock")
    private boolean halfClosed;

    @GuardedBy("lock")
    private boolean rejected;

    /** Why the call ended early; null while it has not. */
    @GuardedBy("lock")
    private Status cancelStatus;

    /** The thread running the method, while it runs; interrupted when the call is cancelled. */
    @GuardedBy("lock")
    private Thread methodThread;

    @GuardedBy("lock")
    private boolean interruptedByUs;

    @GuardedBy("lock")
    private boolean finished;

    Stream(
        BlockingServerCallHandler<ReqT, RespT> handler, ServerCall<ReqT, RespT> call, Context c) {
      this.handler = handler;
      this.call = call;
      this.context = c;
    }

    void dispatch(ReqT request) {
      try {
        handler.executor.execute(() -> runMethod(request));
      } catch (RejectedExecutionException e) {
        lock.lock();
        try {
          finished = true;
          call.close(
              Status.RESOURCE_EXHAUSTED
                  .withDescription("The server's blocking executor refused the call")
                  .withCause(e),
              new Metadata());
        } finally {
          lock.unlock();
        }
      }
    }

    private void runMethod(ReqT request) {
      lock.lock();
      try {
        if (cancelStatus != null) {
          return;
        }
        methodThread = Thread.currentThread();
      } finally {
        lock.unlock();
      }
      Status status = Status.OK;
      Metadata trailers = null;
      Throwable failure = null;
      Context previous = context.attach();
      try {
        RespT response = handler.body.run(request, this);
        if (handler.singleResponse) {
          Objects.requireNonNull(response, "the blocking method returned a null response");
          lock.lock();
          try {
            if (cancelStatus == null) {
              call.sendMessage(response);
            }
          } finally {
            lock.unlock();
          }
        }
      } catch (Throwable t) {
        failure = t;
        status = Status.fromThrowable(t);
        trailers = Status.trailersFromThrowable(t);
      } finally {
        context.detach(previous);
      }
      finish(status, trailers, failure);
    }

    private void finish(Status status, Metadata trailers, Throwable failure) {
      // An exception carrying no status of its own is the application's error: logged, not sent.
      boolean applicationError =
          failure != null
              && status.getCode() == Status.Code.UNKNOWN
              && status.getCause() == failure;
      boolean cancelled;
      lock.lock();
      try {
        methodThread = null;
        finished = true;
        cancelled = cancelStatus != null;
        if (interruptedByUs) {
          Thread.interrupted(); // the thread goes back to its executor without our interrupt
        }
        if (!cancelled) {
          if (applicationError) {
            // Logged before the close, so that the log precedes anything the client sees.
            logger.log(
                Level.WARNING,
                "Exception in a blocking handler of "
                    + call.getMethodDescriptor().getFullMethodName(),
                failure);
          }
          call.close(
              applicationError
                  ? Status.UNKNOWN.withDescription("Application error processing RPC")
                  : status,
              trailers != null ? trailers : new Metadata());
        }
      } finally {
        lock.unlock();
      }
      if (failure instanceof Error) {
        throw (Error) failure;
      }
    }

    @Override
    public ReqT read() throws InterruptedException, StatusException {
      lock.lock();
      try {
        while (true) {
          checkUsable();
          ReqT request = requests.poll();
          if (request != null) {
            return request;
          }
          if (halfClosed) {
            return null;
          }
          if (!requestPending) {
            requestPending = true;
            call.request(1);
            continue; // an in-process transport may have delivered it already
          }
          awaitChange();
        }
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void write(RespT message) throws InterruptedException, StatusException {
      Objects.requireNonNull(message, "message");
      lock.lock();
      try {
        while (true) {
          checkUsable();
          if (call.isReady()) {
            call.sendMessage(message);
            return;
          }
          awaitChange();
        }
      } finally {
        lock.unlock();
      }
    }

    @Override
    public boolean isReady() {
      lock.lock();
      try {
        return cancelStatus == null && !finished && call.isReady();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public boolean isCancelled() {
      lock.lock();
      try {
        return cancelStatus != null;
      } finally {
        lock.unlock();
      }
    }

    /** Called with the lock held. */
    @GuardedBy("lock")
    private void checkUsable() throws StatusException {
      if (cancelStatus != null) {
        throw cancelStatus.asException();
      }
      if (finished) {
        throw new IllegalStateException("The blocking method has returned");
      }
    }

    /** Called with the lock held: waits for the next event; cancellation wins over interrupts. */
    @GuardedBy("lock")
    private void awaitChange() throws InterruptedException, StatusException {
      try {
        changed.await();
      } catch (InterruptedException e) {
        if (cancelStatus != null) {
          // Our interrupt: the flag stays set, as it does when the signal won the race.
          Thread.currentThread().interrupt();
          throw cancelStatus.asException();
        }
        throw e;
      }
    }

    ServerCall.Listener<ReqT> listener() {
      return new ServerCall.Listener<>() {
        @Override
        public void onMessage(ReqT message) {
          lock.lock();
          try {
            if (rejected) {
              return;
            }
            if (handler.singleRequest && !requests.isEmpty()) {
              reject(StubStatuses.tooManyRequests(fullMethodName()));
              return;
            }
            requests.add(message);
            requestPending = false;
            changed.signalAll();
          } finally {
            lock.unlock();
          }
        }

        @Override
        public void onHalfClose() {
          ReqT single;
          lock.lock();
          try {
            halfClosed = true;
            changed.signalAll();
            if (!handler.singleRequest || rejected) {
              return;
            }
            single = requests.poll();
            if (single == null) {
              reject(StubStatuses.noRequest(fullMethodName()));
              return;
            }
          } finally {
            lock.unlock();
          }
          dispatch(single);
        }

        @Override
        public void onCancel() {
          lock.lock();
          try {
            cancelStatus = cancellationStatus(context.cancellationCause());
            requests.clear();
            if (methodThread != null) {
              interruptedByUs = true;
              methodThread.interrupt();
            }
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
      };
    }

    /** Called with the lock held. */
    @GuardedBy("lock")
    private void reject(Status status) {
      rejected = true;
      finished = true;
      requests.clear();
      call.close(status, new Metadata());
    }

    private String fullMethodName() {
      return call.getMethodDescriptor().getFullMethodName();
    }
  }

  /** The status a cancelled call's reader and writer throw, from its context's cause. */
  static Status cancellationStatus(Throwable cause) {
    if (cause instanceof TimeoutException) {
      return Status.DEADLINE_EXCEEDED.withDescription("The call's deadline passed");
    }
    if (cause != null) {
      Status status = Status.fromThrowable(cause);
      if (status.getCode() == Status.Code.DEADLINE_EXCEEDED) {
        return status;
      }
    }
    return Status.CANCELLED.withDescription("The call was cancelled");
  }
}
