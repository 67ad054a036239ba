package dev.tern.stub;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.NonBlockingScope;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.ThreadlessExecutor;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs client calls in the three styles of generated stubs: blocking, future and asynchronous
 * ({@link StreamObserver}). Generated code calls these; applications can too, with a hand-made
 * {@link MethodDescriptor}.
 *
 * <p>Flow control: unless a {@link ClientResponseObserver} takes over in {@link
 * ClientResponseObserver#beforeStart}, responses are requested automatically: one at a time for
 * streaming responses (the next once the observer's {@code onNext} returned), two up front for a
 * single response (so that a server sending a second one is detected and the call failed).
 *
 * <p>Cardinality: a unary or client-streaming call whose server closes it {@code OK} without a
 * response, or sends a second one (the call is then cancelled), fails with {@code UNIMPLEMENTED},
 * as gRPC's status-code table prescribes for a response cardinality violation.
 *
 * <p>Errors: failed calls end with a {@link StatusRuntimeException} carrying the status and the
 * server's trailers, thrown by blocking calls, completing futures exceptionally, or given to the
 * response observer's {@code onError}. An exception thrown by the application's response observer
 * (or its on-ready handler) cancels the call, and the observer's {@code onError} then receives
 * {@code CANCELLED} with that exception as cause. An exception thrown while starting a call (for
 * example by a marshaller) cancels the call and is rethrown.
 *
 * <p>Thread-safe: all methods are static and may be called from any thread.
 */
public final class ClientCalls {
  private static final Logger logger = Logger.getLogger(ClientCalls.class.getName());

  /**
   * Which style of stub made a call. The stub bases store it in the call options under {@link
   * #STUB_TYPE_OPTION}, so interceptors and the runtime can tell (for example to know that a thread
   * is blocked on the call).
   */
  public enum StubType {
    /** {@link AbstractBlockingStub}, or {@link #blockingUnaryCall}-style calls. */
    BLOCKING,
    /** {@link AbstractFutureStub}. */
    FUTURE,
    /** {@link AbstractAsyncStub}. */
    ASYNC
  }

  /** The call option holding the {@link StubType} of the stub that made the call; null if none. */
  public static final CallOptions.Key<StubType> STUB_TYPE_OPTION =
      CallOptions.Key.create("dev.tern.stub.ClientCalls.stubType");

  private ClientCalls() {}

  /**
   * Starts a unary call: sends {@code request} and reports the single response to {@code
   * responseObserver} ({@code onNext} once, then {@code onCompleted}), or the failure to its {@code
   * onError}. Returns at once.
   */
  public static <ReqT, RespT> void asyncUnaryCall(
      ClientCall<ReqT, RespT> call, ReqT request, StreamObserver<RespT> responseObserver) {
    asyncUnaryRequestCall(call, request, responseObserver, false);
  }

  /**
   * Starts a server-streaming call: sends {@code request} and reports each response to {@code
   * responseObserver}, then {@code onCompleted} or {@code onError}. Returns at once.
   */
  public static <ReqT, RespT> void asyncServerStreamingCall(
      ClientCall<ReqT, RespT> call, ReqT request, StreamObserver<RespT> responseObserver) {
    asyncUnaryRequestCall(call, request, responseObserver, true);
  }

  /**
   * Starts a client-streaming call and returns the observer to send requests on; finish with its
   * {@code onCompleted}. The single response goes to {@code responseObserver}.
   */
  public static <ReqT, RespT> StreamObserver<ReqT> asyncClientStreamingCall(
      ClientCall<ReqT, RespT> call, StreamObserver<RespT> responseObserver) {
    return startAsync(call, responseObserver, false);
  }

  /**
   * Starts a bidirectional-streaming call and returns the observer to send requests on (it is a
   * {@link ClientCallStreamObserver}). Responses go to {@code responseObserver}.
   */
  public static <ReqT, RespT> StreamObserver<ReqT> asyncBidiStreamingCall(
      ClientCall<ReqT, RespT> call, StreamObserver<RespT> responseObserver) {
    return startAsync(call, responseObserver, true);
  }

  /**
   * Starts a unary call and returns its response as a future. The future completes exceptionally
   * with a {@link StatusRuntimeException} (status and trailers) if the call fails. Cancelling the
   * future ({@code cancel(true)} or {@code cancel(false)}) cancels the RPC, and the server sees it
   * cancelled. Completing the future by other means ({@code complete}, {@code orTimeout}...) does
   * not affect the RPC: use a deadline to bound it.
   */
  public static <ReqT, RespT> CompletableFuture<RespT> futureUnaryCall(
      ClientCall<ReqT, RespT> call, ReqT request) {
    Objects.requireNonNull(call, "call");
    UnaryResponseFuture<RespT> future = new UnaryResponseFuture<>(call);
    startUnary(call, request, future.listener());
    return future;
  }

  /**
   * Makes a unary call and waits for its response. The call's callbacks run on the calling thread
   * (through a {@link ThreadlessExecutor} that replaces any executor in {@code callOptions}), so no
   * other thread is tied up while it waits.
   *
   * @return the response
   * @throws StatusRuntimeException with the call's status and the server's trailers if it fails;
   *     with {@code CANCELLED} if the thread is interrupted while waiting, in which case the call
   *     is cancelled and the thread's interrupt flag is set again
   */
  public static <ReqT, RespT> RespT blockingUnaryCall(
      Channel channel,
      MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions,
      ReqT request) {
    ThreadlessExecutor executor = new ThreadlessExecutor();
    ClientCall<ReqT, RespT> call = newBlockingCall(channel, method, callOptions, executor);
    BlockingUnaryOutcome<RespT> outcome = new BlockingUnaryOutcome<>(call);
    boolean interrupted = false;
    try {
      startUnary(call, request, outcome);
      while (!outcome.done) {
        try {
          executor.waitAndDrain();
        } catch (InterruptedException e) {
          if (!interrupted) {
            interrupted = true;
            // The cancellation's onClose comes through the executor: keep draining for it.
            call.cancel("Thread interrupted", e);
          }
        }
      }
    } finally {
      // Callbacks after onClose (there should be none) must not queue up unseen.
      executor.shutdown();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (outcome.failure != null) {
      throw outcome.failure;
    }
    return outcome.value;
  }

  /**
   * Makes a server-streaming call and returns an iterator over its responses, which blocks in
   * {@code hasNext()} until the next response or the end of the call. Back-pressure: one response
   * is requested at a time, the next when {@code next()} hands the previous one out. The call's
   * callbacks run on the thread consuming the iterator (through a {@link ThreadlessExecutor}).
   *
   * <p>The iterator's {@code hasNext()} and {@code next()} throw a {@link StatusRuntimeException}
   * if the call failed, once the responses received before the failure were consumed; {@code
   * CANCELLED} if the consuming thread is interrupted while waiting (the call is cancelled and the
   * interrupt flag set again). Abandoning the iterator early does not end the call: cancel it
   * through a deadline or a cancellable {@link dev.tern.Context}.
   *
   * <p>The iterator is not thread-safe; consume it from one thread at a time.
   */
  public static <ReqT, RespT> Iterator<RespT> blockingServerStreamingCall(
      Channel channel,
      MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions,
      ReqT request) {
    ThreadlessExecutor executor = new ThreadlessExecutor();
    ClientCall<ReqT, RespT> call = newBlockingCall(channel, method, callOptions, executor);
    BlockingResponseIterator<RespT> iterator = new BlockingResponseIterator<>(call, executor);
    try {
      call.start(iterator.listener(), new Metadata());
      call.request(1);
      call.sendMessage(request);
      call.halfClose();
    } catch (RuntimeException | Error e) {
      RuntimeException rethrown = cancelThrow(call, e);
      executor.shutdown(); // runs the cancellation's onClose, if it was queued
      throw rethrown;
    }
    return iterator;
  }

  /**
   * As {@link #blockingUnaryCall}, but a failure is a checked {@link StatusException} (with the
   * call's status and the server's trailers), as the generated blocking V2 stubs declare. An
   * interrupt while waiting cancels the call, throws {@code CANCELLED} and keeps the thread's
   * interrupt flag set.
   */
  public static <ReqT, RespT> RespT blockingV2UnaryCall(
      Channel channel, MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, ReqT request)
      throws StatusException {
    try {
      return blockingUnaryCall(channel, method, callOptions, request);
    } catch (StatusRuntimeException e) {
      throw new StatusException(e.getStatus(), e.getTrailers());
    }
  }

  /**
   * Starts a server-streaming call that sends {@code request} and half-closes; read the responses
   * with {@link BlockingClientCall#read()} until it returns null.
   */
  public static <ReqT, RespT> BlockingClientCall<ReqT, RespT> blockingV2ServerStreamingCall(
      Channel channel,
      MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions,
      ReqT request) {
    Objects.requireNonNull(request, "request");
    BlockingClientCall<ReqT, RespT> blocking =
        startBlockingCall(
            channel, method, callOptions, MethodDescriptor.MethodType.SERVER_STREAMING);
    ClientCall<ReqT, RespT> call = blocking.clientCall();
    try {
      call.sendMessage(request);
      blocking.halfClose();
    } catch (RuntimeException | Error e) {
      throw cancelThrow(call, e);
    }
    return blocking;
  }

  /**
   * Starts a client-streaming call: {@link BlockingClientCall#write} the requests, {@link
   * BlockingClientCall#halfClose()}, then {@link BlockingClientCall#read()} the response.
   */
  public static <ReqT, RespT> BlockingClientCall<ReqT, RespT> blockingClientStreamingCall(
      Channel channel, MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    return startBlockingCall(
        channel, method, callOptions, MethodDescriptor.MethodType.CLIENT_STREAMING);
  }

  /**
   * Starts a bidirectional-streaming call: write and read through the returned call, from one
   * thread or two.
   */
  public static <ReqT, RespT> BlockingClientCall<ReqT, RespT> blockingBidiStreamingCall(
      Channel channel, MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    return startBlockingCall(
        channel, method, callOptions, MethodDescriptor.MethodType.BIDI_STREAMING);
  }

  private static <ReqT, RespT> BlockingClientCall<ReqT, RespT> startBlockingCall(
      Channel channel,
      MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions,
      MethodDescriptor.MethodType type) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(callOptions, "callOptions");
    if (method.getType() != type) {
      throw new IllegalArgumentException(
          "method " + method.getFullMethodName() + " is " + method.getType() + ", not " + type);
    }
    ClientCall<ReqT, RespT> call =
        channel.newCall(method, callOptions.withOption(STUB_TYPE_OPTION, StubType.BLOCKING));
    try {
      return BlockingClientCall.start(call, type.serverSendsOneMessage());
    } catch (RuntimeException | Error e) {
      throw cancelThrow(call, e);
    }
  }

  private static <ReqT, RespT> ClientCall<ReqT, RespT> newBlockingCall(
      Channel channel,
      MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions,
      ThreadlessExecutor executor) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(callOptions, "callOptions");
    NonBlockingScope.checkMayBlock("to " + method.getFullMethodName() + " (a blocking stub)");
    return channel.newCall(
        method, callOptions.withOption(STUB_TYPE_OPTION, StubType.BLOCKING).withExecutor(executor));
  }

  private static <ReqT, RespT> void asyncUnaryRequestCall(
      ClientCall<ReqT, RespT> call,
      ReqT request,
      StreamObserver<RespT> responseObserver,
      boolean streamingResponse) {
    startAsync(call, responseObserver, streamingResponse);
    try {
      call.sendMessage(request);
      call.halfClose();
    } catch (RuntimeException | Error e) {
      throw cancelThrow(call, e);
    }
  }

  private static <ReqT, RespT> ClientRequestStream<ReqT> startAsync(
      ClientCall<ReqT, RespT> call,
      StreamObserver<RespT> responseObserver,
      boolean streamingResponse) {
    Objects.requireNonNull(call, "call");
    Objects.requireNonNull(responseObserver, "responseObserver");
    ClientRequestStream<ReqT> requestStream = new ClientRequestStream<>(call, streamingResponse);
    try {
      if (responseObserver instanceof ClientResponseObserver) {
        // The stub types the observer with this call's request type; erasure cannot check it.
        @SuppressWarnings("unchecked")
        ClientResponseObserver<ReqT, RespT> configurable =
            (ClientResponseObserver<ReqT, RespT>) responseObserver;
        configurable.beforeStart(requestStream);
      }
      requestStream.freeze();
      call.start(new ResponseObserverListener<>(responseObserver, requestStream), new Metadata());
      int initialRequest = requestStream.initialRequest();
      if (initialRequest > 0) {
        call.request(initialRequest);
      }
    } catch (RuntimeException | Error e) {
      throw cancelThrow(call, e);
    }
    return requestStream;
  }

  private static <ReqT, RespT> void startUnary(
      ClientCall<ReqT, RespT> call, ReqT request, ClientCall.Listener<RespT> listener) {
    try {
      call.start(listener, new Metadata());
      // Two, so that a second response is noticed (and fails the call) rather than left unread.
      call.request(2);
      call.sendMessage(request);
      call.halfClose();
    } catch (RuntimeException | Error e) {
      throw cancelThrow(call, e);
    }
  }

  /**
   * Cancels {@code call} because starting it threw {@code t}, and returns {@code t} for the caller
   * to throw (an {@link Error} is thrown from here).
   */
  private static RuntimeException cancelThrow(ClientCall<?, ?> call, Throwable t) {
    try {
      call.cancel(null, t);
    } catch (RuntimeException | Error e) {
      logger.log(Level.SEVERE, "Cancelling a call that failed to start threw", e);
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
    return (RuntimeException) t;
  }

  /**
   * The outcome of a blocking unary call, written and read on the calling thread only (the
   * callbacks run there through the {@link ThreadlessExecutor}).
   */
  private static final class BlockingUnaryOutcome<RespT> extends SingleResponseListener<RespT> {
    boolean done;
    RespT value;
    StatusRuntimeException failure;

    BlockingUnaryOutcome(ClientCall<?, RespT> call) {
      super(call);
    }

    @Override
    void onSuccess(RespT value) {
      this.value = value;
      done = true;
    }

    @Override
    void onFailure(Status status, Metadata trailers) {
      failure = status.asRuntimeException(trailers);
      done = true;
    }
  }
}
