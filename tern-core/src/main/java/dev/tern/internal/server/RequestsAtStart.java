package dev.tern.internal.server;

/**
 * Implemented by a {@link dev.tern.ServerCallHandler} whose {@code startCall} always begins by
 * requesting the same number of messages (the stubs' unary and server-streaming handlers ask for
 * two). The runtime then asks the transport for them itself, on the transport's thread, while it
 * starts the call; the handler's own {@code request} is absorbed by the call instead of crossing
 * over to the transport's thread again. A handler wrapped by interceptors no longer carries the
 * marker, so interceptors always see the request as before.
 *
 * <p>Implementations must be thread-safe, like any handler.
 */
public interface RequestsAtStart {
  /** How many messages {@code startCall} requests before anything else; positive. */
  int messagesRequestedAtStart();
}
