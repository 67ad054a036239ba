package dev.tern.stub;

import dev.tern.MethodDescriptor;
import dev.tern.ServerCallHandler;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Turns service methods written in blocking style into {@link ServerCallHandler}s: a unary method
 * returns its response, streaming methods read requests from a {@link BlockingServerReader} and
 * write responses to a {@link BlockingServerWriter}, both of which block with flow control. The
 * generated {@code bindBlockingService} uses these; hand-written services can too.
 *
 * <p>Threads: each call's method runs on a thread of its own from the executor given, by default
 * {@link BlockingExecutors#defaultExecutor()} (a virtual thread per call on JDK 21 and later, a
 * bounded pool before). Unary and server-streaming methods start once the client half-closed after
 * exactly one request (any other count closes the call {@code UNIMPLEMENTED}, "Too many requests"
 * or "Half-closed without a request", without running the method: gRPC's status-code table makes a
 * request cardinality violation {@code UNIMPLEMENTED}); client-streaming and bidi methods start
 * with the call. The method runs with the call's {@link dev.tern.Context} attached. An executor
 * that refuses the call closes it with {@code RESOURCE_EXHAUSTED}.
 *
 * <p>How a call ends:
 *
 * <ul>
 *   <li>The method returns: the call closes {@code OK} (after the response, for methods that return
 *       one; returning null is an application error, as below).
 *   <li>It throws a {@link dev.tern.StatusException} or {@link StatusRuntimeException}: the call
 *       closes with that status and the exception's trailers.
 *   <li>It throws anything else: the call closes {@code UNKNOWN} with the description "Application
 *       error processing RPC" (nothing about the exception reaches the client) and the exception is
 *       logged at {@code WARNING}.
 *   <li>The client cancels, the deadline passes or the connection is lost while the method runs:
 *       the method's thread is interrupted (the flag stays set when the reader or writer throws),
 *       and its reader and writer throw a {@code StatusException} with {@code CANCELLED} or {@code
 *       DEADLINE_EXCEEDED}, so that blocking code elsewhere in the method stops too. Whatever the
 *       method then does is not sent, and nothing is logged.
 * </ul>
 *
 * <p>The returned handlers are immutable and thread-safe, like the methods must be.
 */
public final class BlockingServerCalls {
  private BlockingServerCalls() {}

  /** A unary method: one request, one response. */
  @FunctionalInterface
  public interface UnaryMethod<ReqT, RespT> {
    /** Handles {@code request} and returns the response (not null). */
    RespT invoke(ReqT request) throws Exception;
  }

  /** A server-streaming method: one request, a stream of responses. */
  @FunctionalInterface
  public interface ServerStreamingMethod<ReqT, RespT> {
    /** Handles {@code request}, writing any number of responses; returning ends the stream. */
    void invoke(ReqT request, BlockingServerWriter<RespT> responses) throws Exception;
  }

  /** A client-streaming method: a stream of requests, one response. */
  @FunctionalInterface
  public interface ClientStreamingMethod<ReqT, RespT> {
    /** Reads the requests and returns the response (not null). */
    RespT invoke(BlockingServerReader<ReqT> requests) throws Exception;
  }

  /** A bidirectional-streaming method: streams both ways. */
  @FunctionalInterface
  public interface BidiStreamingMethod<ReqT, RespT> {
    /** Reads requests and writes responses, in any order; returning ends the response stream. */
    void invoke(BlockingServerReader<ReqT> requests, BlockingServerWriter<RespT> responses)
        throws Exception;
  }

  /** Returns a handler running {@code method} on the default executor for each unary call. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> unaryCall(
      UnaryMethod<ReqT, RespT> method) {
    return unaryCall(method, BlockingExecutors.defaultExecutor());
  }

  /** Returns a handler running {@code method} on {@code executor} for each unary call. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> unaryCall(
      UnaryMethod<ReqT, RespT> method, Executor executor) {
    Objects.requireNonNull(method, "method");
    return new BlockingServerCallHandler<>(
        executor, true, true, (request, stream) -> method.invoke(request));
  }

  /** Returns a handler running {@code method} on the default executor for each call. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> serverStreamingCall(
      ServerStreamingMethod<ReqT, RespT> method) {
    return serverStreamingCall(method, BlockingExecutors.defaultExecutor());
  }

  /** Returns a handler running {@code method} on {@code executor} for each call. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> serverStreamingCall(
      ServerStreamingMethod<ReqT, RespT> method, Executor executor) {
    Objects.requireNonNull(method, "method");
    return new BlockingServerCallHandler<>(
        executor,
        true,
        false,
        (request, stream) -> {
          method.invoke(request, stream);
          return null;
        });
  }

  /** Returns a handler running {@code method} on the default executor for each call. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> clientStreamingCall(
      ClientStreamingMethod<ReqT, RespT> method) {
    return clientStreamingCall(method, BlockingExecutors.defaultExecutor());
  }

  /** Returns a handler running {@code method} on {@code executor} for each call. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> clientStreamingCall(
      ClientStreamingMethod<ReqT, RespT> method, Executor executor) {
    Objects.requireNonNull(method, "method");
    return new BlockingServerCallHandler<>(
        executor, false, true, (request, stream) -> method.invoke(stream));
  }

  /** Returns a handler running {@code method} on the default executor for each call. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> bidiStreamingCall(
      BidiStreamingMethod<ReqT, RespT> method) {
    return bidiStreamingCall(method, BlockingExecutors.defaultExecutor());
  }

  /** Returns a handler running {@code method} on {@code executor} for each call. */
  public static <ReqT, RespT> ServerCallHandler<ReqT, RespT> bidiStreamingCall(
      BidiStreamingMethod<ReqT, RespT> method, Executor executor) {
    Objects.requireNonNull(method, "method");
    return new BlockingServerCallHandler<>(
        executor,
        false,
        false,
        (request, stream) -> {
          method.invoke(stream, stream);
          return null;
        });
  }

  /**
   * Returns the exception a blocking method throws when the service does not implement it: {@code
   * UNIMPLEMENTED}, "Method pkg.Svc/M is unimplemented". The generated blocking service interface's
   * default methods throw it.
   */
  public static StatusRuntimeException unimplemented(MethodDescriptor<?, ?> methodDescriptor) {
    Objects.requireNonNull(methodDescriptor, "methodDescriptor");
    return Status.UNIMPLEMENTED
        .withDescription("Method " + methodDescriptor.getFullMethodName() + " is unimplemented")
        .asRuntimeException();
  }
}
