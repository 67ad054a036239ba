package dev.tern.stub;

import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.Status;
import dev.tern.internal.server.RequestsAtStart;
import java.util.Objects;

/**
 * Turns service methods written against {@link StreamObserver}s into {@link ServerCallHandler}s,
 * one factory per method type. Generated service bases use these; hand-written services can too.
 *
 * <p>The {@code StreamObserver} a method gets to respond on is a {@link ServerCallStreamObserver}
 * (see there for cancellation, flow control and compression). Its rules:
 *
 * <ul>
 *   <li>{@code onError(t)} closes the call with {@link Status#fromThrowable}{@code (t)} and the
 *       trailers {@code t} carries, if any.
 *   <li>{@code onNext}, {@code onError} or {@code onCompleted} after {@code onError} or {@code
 *       onCompleted} throws {@link IllegalStateException}.
 *   <li>{@code onNext} on a cancelled server-streaming or bidi call throws a {@code CANCELLED}
 *       {@link dev.tern.StatusRuntimeException} (so a sending loop stops), unless an on-cancel
 *       handler was set: then it is ignored. On a cancelled unary or client-streaming call the
 *       response is dropped silently, as is the final {@code onCompleted}/{@code onError} of any
 *       cancelled call.
 *   <li>{@code setOnCancelHandler}, {@code setOnReadyHandler}, {@code setOnCloseHandler} and {@code
 *       disableAutoInboundFlowControl} only while the service method runs (for unary and
 *       server-streaming methods: the {@code invoke} call; for client-streaming and bidi methods:
 *       until {@code invoke} returns the request observer); later they throw {@link
 *       IllegalStateException}. {@code isReady}, {@code isCancelled}, {@code request}, {@code
 *       setCompression} and {@code setMessageCompression} may be used at any time.
 * </ul>
 *
 * <p>Unary and server-streaming methods are invoked once the client half-closed after exactly one
 * request; any other count closes the call with {@code UNIMPLEMENTED} ("Too many requests" or
 * "Half-closed without a request", as gRPC's status-code table prescribes for a request cardinality
 * violation) and the method is not invoked. The second request is noticed as it arrives (two are
 * requested, never more), so nothing is buffered beyond it. A unary or client-streaming method that
 * calls {@code onCompleted} without a response closes the call {@code UNIMPLEMENTED} ("Completed
 * without a response"), the code the client would give an {@code OK} without one. Client-streaming
 * and bidi methods are invoked when the call starts, and requests are passed on as they arrive: one
 * at a time, the next requested once the request observer's {@code onNext} returned, unless the
 * method called {@code disableAutoInboundFlowControl()} and requests them itself. When such a call
 * is cancelled before the client half-closed, the request observer gets {@code onError(CANCELLED)}.
 *
 * <p>Exceptions thrown by service methods or their observers propagate to the server runtime, which
 * closes the call ({@code UNKNOWN}); report errors through {@code onError} instead.
 *
 * <p>The returned handlers are immutable and thread-safe, like the service methods must be.
 */
public final class ServerCalls {
  private ServerCalls() {}

  /** A unary method: one request, one response. */
  @FunctionalInterface
  public interface UnaryMethod<ReqT, RespT> {
    /** Handles {@code request}; respond with one {@code onNext} then {@code onCompleted}. */
    void invoke(ReqT request, StreamObserver<RespT> responseObserver);
  }

  /** A server-streaming method: one request, a stream of responses. */
  @FunctionalInterface
  public interface ServerStreamingMethod<ReqT, RespT> {
    /** Handles {@code request}; respond with any number of {@code onNext}, then end the stream. */
    void invoke(ReqT request, StreamObserver<RespT> responseObserver);
  }

  /** A client-streaming method: a stream of requests, one response. */
  @FunctionalInterface
  public interface ClientStreamingMethod<ReqT, RespT> {
    /** Starts the call; returns the observer that receives the requests (never null). */
    StreamObserver<ReqT> invoke(StreamObserver<RespT> responseObserver);
  }

  /** A bidirectional-streaming method: streams both ways. */
  @FunctionalInterface
  public interface BidiStreamingMethod<ReqT, RespT> {
    /** Starts the call; returns the observer that receives the requests (never null). */
    StreamObserver<ReqT> invoke(StreamObserver<RespT> responseObserver);
  }

  /** Returns a handler running {@code method} for each call of a unary method. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> asyncUnaryCall(
      UnaryMethod<ReqT, RespT> method) {
    Objects.requireNonNull(method, "method");
    return new UnaryRequestHandler<>(method::invoke);
  }

  /** Returns a handler running {@code method} for each call of a server-streaming method. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> asyncServerStreamingCall(
      ServerStreamingMethod<ReqT, RespT> method) {
    Objects.requireNonNull(method, "method");
    return new UnaryRequestHandler<>(method::invoke);
  }

  /** Returns a handler running {@code method} for each call of a client-streaming method. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> asyncClientStreamingCall(
      ClientStreamingMethod<ReqT, RespT> method) {
    Objects.requireNonNull(method, "method");
    return new StreamingRequestHandler<>(method::invoke);
  }

  /** Returns a handler running {@code method} for each call of a bidi-streaming method. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> asyncBidiStreamingCall(
      BidiStreamingMethod<ReqT, RespT> method) {
    Objects.requireNonNull(method, "method");
    return new StreamingRequestHandler<>(method::invoke);
  }

  /**
   * Answers a unary or server-streaming call with {@code UNIMPLEMENTED} ("Method pkg.Svc/M is
   * unimplemented"). Generated service bases call it from methods the service does not override.
   */
  public static void asyncUnimplementedUnaryCall(
      MethodDescriptor<?, ?> methodDescriptor, StreamObserver<?> responseObserver) {
    Objects.requireNonNull(methodDescriptor, "methodDescriptor");
    Objects.requireNonNull(responseObserver, "responseObserver");
    responseObserver.onError(
        Status.UNIMPLEMENTED
            .withDescription("Method " + methodDescriptor.getFullMethodName() + " is unimplemented")
            .asRuntimeException());
  }

  /**
   * Answers a client-streaming or bidi call with {@code UNIMPLEMENTED} (as {@link
   * #asyncUnimplementedUnaryCall}) and returns a request observer that ignores everything.
   */
  public static <T> StreamObserver<T> asyncUnimplementedStreamingCall(
      MethodDescriptor<?, ?> methodDescriptor, StreamObserver<?> responseObserver) {
    asyncUnimplementedUnaryCall(methodDescriptor, responseObserver);
    return new IgnoringStreamObserver<>();
  }

  /** The shape shared by unary and server-streaming methods. */
  @FunctionalInterface
  private interface UnaryRequestMethod<ReqT, RespT> {
    void invoke(ReqT request, StreamObserver<RespT> responseObserver);
  }

  /** The shape shared by client-streaming and bidi methods. */
  @FunctionalInterface
  private interface StreamingRequestMethod<ReqT, RespT> {
    StreamObserver<ReqT> invoke(StreamObserver<RespT> responseObserver);
  }

  /** Immutable; thread-safe. */
  private static final class UnaryRequestHandler<ReqT, RespT>
      implements ServerCallHandler<ReqT, RespT>, RequestsAtStart {
    /** Two, so that a client sending a second request is noticed instead of left unread. */
    private static final int REQUESTED = 2;

    private final UnaryRequestMethod<ReqT, RespT> method;

    UnaryRequestHandler(UnaryRequestMethod<ReqT, RespT> method) {
      this.method = method;
    }

    @Override
    public ServerCall.Listener<ReqT> startCall(ServerCall<ReqT, RespT> call, Metadata headers) {
      MethodDescriptor<ReqT, RespT> descriptor = call.getMethodDescriptor();
      if (!descriptor.getType().clientSendsOneMessage()) {
        throw new IllegalArgumentException(
            "A unary or server-streaming handler was registered for "
                + descriptor.getFullMethodName()
                + ", a "
                + descriptor.getType()
                + " method");
      }
      ServerResponseStream<ReqT, RespT> responseStream = new ServerResponseStream<>(call);
      call.request(REQUESTED);
      return new UnaryRequestListener<>(method, responseStream);
    }

    @Override
    public int messagesRequestedAtStart() {
      return REQUESTED;
    }
  }

  /**
   * Collects the single request and invokes the method when the client half-closes. Callbacks are
   * serialized by the server runtime, so the fields need no lock.
   */
  private static final class UnaryRequestListener<ReqT, RespT> extends ServerCall.Listener<ReqT> {
    private final UnaryRequestMethod<ReqT, RespT> method;
    private final ServerResponseStream<ReqT, RespT> responseStream;
    private ReqT request;
    private boolean received;
    private boolean rejected;
    private boolean invoked;
    private boolean readyBeforeInvoke;

    UnaryRequestListener(
        UnaryRequestMethod<ReqT, RespT> method, ServerResponseStream<ReqT, RespT> responseStream) {
      this.method = method;
      this.responseStream = responseStream;
    }

    @Override
    public void onMessage(ReqT message) {
      if (rejected) {
        return;
      }
      if (received) {
        reject(StubStatuses.tooManyRequests(fullMethodName()));
        return;
      }
      request = message;
      received = true;
    }

    @Override
    public void onHalfClose() {
      if (rejected) {
        return;
      }
      if (!received) {
        reject(StubStatuses.noRequest(fullMethodName()));
        return;
      }
      ReqT toHandle = request;
      request = null;
      try {
        method.invoke(toHandle, responseStream);
      } finally {
        responseStream.freeze();
        invoked = true;
      }
      if (readyBeforeInvoke) {
        // The method could not have set its handler when the call became ready: tell it now.
        onReady();
      }
    }

    private void reject(Status status) {
      rejected = true;
      request = null;
      responseStream.call().close(status, new Metadata());
    }

    private String fullMethodName() {
      return responseStream.call().getMethodDescriptor().getFullMethodName();
    }

    @Override
    public void onCancel() {
      Runnable handler = responseStream.onCancelHandler();
      if (handler != null) {
        handler.run();
      }
    }

    @Override
    public void onComplete() {
      Runnable handler = responseStream.onCloseHandler();
      if (handler != null) {
        handler.run();
      }
    }

    @Override
    public void onReady() {
      if (!invoked) {
        readyBeforeInvoke = true;
        return;
      }
      Runnable handler = responseStream.onReadyHandler();
      if (handler != null) {
        handler.run();
      }
    }
  }

  /** Immutable; thread-safe. */
  private static final class StreamingRequestHandler<ReqT, RespT>
      implements ServerCallHandler<ReqT, RespT> {
    private final StreamingRequestMethod<ReqT, RespT> method;

    StreamingRequestHandler(StreamingRequestMethod<ReqT, RespT> method) {
      this.method = method;
    }

    @Override
    public ServerCall.Listener<ReqT> startCall(ServerCall<ReqT, RespT> call, Metadata headers) {
      ServerResponseStream<ReqT, RespT> responseStream = new ServerResponseStream<>(call);
      StreamObserver<ReqT> requestObserver;
      try {
        requestObserver = method.invoke(responseStream);
      } finally {
        responseStream.freeze();
      }
      Objects.requireNonNull(
          requestObserver,
          "the service method for "
              + call.getMethodDescriptor().getFullMethodName()
              + " returned a null request observer");
      if (responseStream.autoRequest()) {
        call.request(1);
      }
      return new StreamingRequestListener<>(requestObserver, responseStream);
    }
  }

  /**
   * Passes requests on to the method's request observer. Callbacks are serialized by the server
   * runtime, so the fields need no lock.
   */
  private static final class StreamingRequestListener<ReqT, RespT>
      extends ServerCall.Listener<ReqT> {
    private final StreamObserver<ReqT> requestObserver;
    private final ServerResponseStream<ReqT, RespT> responseStream;
    private boolean halfClosed;

    StreamingRequestListener(
        StreamObserver<ReqT> requestObserver, ServerResponseStream<ReqT, RespT> responseStream) {
      this.requestObserver = requestObserver;
      this.responseStream = responseStream;
    }

    @Override
    public void onMessage(ReqT message) {
      requestObserver.onNext(message);
      if (responseStream.autoRequest()) {
        responseStream.call().request(1);
      }
    }

    @Override
    public void onHalfClose() {
      halfClosed = true;
      requestObserver.onCompleted();
    }

    @Override
    public void onCancel() {
      Runnable handler = responseStream.onCancelHandler();
      try {
        if (handler != null) {
          handler.run();
        }
      } finally {
        if (!halfClosed) {
          requestObserver.onError(
              Status.CANCELLED.withDescription("client cancelled").asRuntimeException());
        }
      }
    }

    @Override
    public void onComplete() {
      Runnable handler = responseStream.onCloseHandler();
      if (handler != null) {
        handler.run();
      }
    }

    @Override
    public void onReady() {
      Runnable handler = responseStream.onReadyHandler();
      if (handler != null) {
        handler.run();
      }
    }
  }

  /** Drops every event; immutable, thread-safe. */
  private static final class IgnoringStreamObserver<V> implements StreamObserver<V> {
    @Override
    public void onNext(V value) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }
}
