package dev.tern.internal.server;

import dev.tern.Metadata;
import dev.tern.NonBlockingScope;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;

/**
 * The handler of a method declared non-blocking, as the method map holds it: the method's own
 * handler (with the builder's interceptors and the binary log around it), marked {@link
 * CallbacksNeverBlock} so that the dispatcher runs its callbacks on the transport's thread, through
 * the method's {@link NonBlockingScope}. Made once per method when the map is built, so the
 * dispatcher's choice per call stays one type check, as for every other method. Keeps the wrapped
 * handler's {@link RequestsAtStart}.
 *
 * <p>Immutable; thread-safe.
 */
final class NonBlockingHandler<ReqT, RespT>
    implements ServerCallHandler<ReqT, RespT>, CallbacksNeverBlock, RequestsAtStart {
  private final ServerCallHandler<ReqT, RespT> delegate;
  private final NonBlockingScope scope;
  private final int requestsAtStart;

  NonBlockingHandler(ServerCallHandler<ReqT, RespT> delegate, String fullMethodName) {
    this.delegate = delegate;
    this.scope = new NonBlockingScope(fullMethodName);
    this.requestsAtStart =
        delegate instanceof RequestsAtStart ahead ? ahead.messagesRequestedAtStart() : 0;
  }

  /** Runs the method's callbacks on the transport's thread, marked as this method's. */
  NonBlockingScope scope() {
    return scope;
  }

  @Override
  public ServerCall.Listener<ReqT> startCall(ServerCall<ReqT, RespT> call, Metadata headers) {
    return delegate.startCall(call, headers);
  }

  @Override
  public int messagesRequestedAtStart() {
    return requestsAtStart;
  }
}
