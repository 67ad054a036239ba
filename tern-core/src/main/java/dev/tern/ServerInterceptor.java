package dev.tern;

/**
 * Intercepts incoming calls before their handler: to authenticate, log, or attach {@link Context}
 * values. Shared between calls, so implementations must be thread-safe.
 */
@FunctionalInterface
public interface ServerInterceptor {
  /**
   * Handles {@code call}, usually by wrapping it and delegating to {@code next.startCall}. An
   * exception thrown here ends the call with a status derived from it.
   */
  <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next);
}
