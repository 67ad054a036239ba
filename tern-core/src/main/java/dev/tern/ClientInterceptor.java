package dev.tern;

/**
 * Intercepts calls before they reach a {@link Channel}: to add headers, log, authenticate, or
 * change call options. Implementations are usually stateless and shared, so they must be
 * thread-safe.
 */
@FunctionalInterface
public interface ClientInterceptor {
  /**
   * Returns the call to use for {@code method}. Usually {@code next.newCall(method, callOptions)}
   * wrapped in a {@link ForwardingClientCall}. An exception thrown here fails the call: the
   * listener's {@code onClose} gets a status derived from it.
   */
  <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next);
}
