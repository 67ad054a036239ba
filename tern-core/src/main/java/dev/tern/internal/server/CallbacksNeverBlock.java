package dev.tern.internal.server;

/**
 * Implemented by a {@link dev.tern.ServerCallHandler} whose {@code startCall} and listener
 * callbacks never block and never run application code: they only record what happened and wake the
 * application's own thread (the blocking handlers, whose methods run on a virtual thread or a pool
 * of their own). The runtime then runs them on the transport's thread instead of handing each one
 * to the server's executor first, which would be a second thread hop per callback on top of the
 * handler's own. A handler wrapped by interceptors no longer carries the marker, so interceptors
 * run on the server's executor, except around a method declared non-blocking, whose {@link
 * NonBlockingHandler} carries the marker outside them.
 *
 * <p>Implementations must be thread-safe, like any handler.
 */
public interface CallbacksNeverBlock {}
