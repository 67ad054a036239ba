/**
 * Stubs: the {@link dev.tern.stub.StreamObserver}-based programming model that generated code and
 * most applications use on top of {@link dev.tern.ClientCall} and {@link dev.tern.ServerCall}.
 *
 * <p>The rooms:
 *
 * <ul>
 *   <li>Client calls: {@link dev.tern.stub.ClientCalls} runs blocking, future and asynchronous
 *       calls; {@code ClientRequestStream} and {@code ResponseObserverListener} are an asynchronous
 *       call's two sides, {@code UnaryResponseFuture} and {@code BlockingResponseIterator} the
 *       future and blocking results; {@link dev.tern.stub.BlockingClientCall} drives any method
 *       type with blocking reads and writes.
 *   <li>Server calls: {@link dev.tern.stub.ServerCalls} turns {@code StreamObserver} methods into
 *       {@link dev.tern.ServerCallHandler}s (the response side is {@code ServerResponseStream});
 *       {@link dev.tern.stub.BlockingServerCalls} does the same for blocking methods, which read
 *       from a {@link dev.tern.stub.BlockingServerReader} and write to a {@link
 *       dev.tern.stub.BlockingServerWriter} on threads from {@link
 *       dev.tern.stub.BlockingExecutors}.
 *   <li>Observers with flow control: {@link dev.tern.stub.CallStreamObserver} and its client and
 *       server forms, {@link dev.tern.stub.ClientResponseObserver}.
 *   <li>Generated stubs' bases: {@link dev.tern.stub.AbstractStub} and its asynchronous, blocking
 *       and future subclasses; {@link dev.tern.stub.MetadataUtils}'s header interceptors.
 *   <li>Cardinality: {@code SingleResponseListener} and {@code StubStatuses}, the {@code
 *       UNIMPLEMENTED} a peer that breaks a method's request or response count gets.
 * </ul>
 *
 * <p>Threads: stubs are immutable and thread-safe, {@code ClientCalls} and {@code ServerCalls}
 * stateless. A blocking client call runs its callbacks on the calling thread, through a {@link
 * dev.tern.internal.ThreadlessExecutor} it drains while it waits; asynchronous calls deliver to the
 * observer on the call's executor, one callback at a time. A blocking server method runs on its
 * executor's thread (a virtual thread per call on JDK 21+) while the call's callbacks run on the
 * transport's thread ({@link dev.tern.internal.server.CallbacksNeverBlock}; on the server's
 * executor when interceptors wrap the handler) and meet it under one lock. Observers handed to the
 * application are not thread-safe: one thread at a time.
 *
 * <p>Uses the API and, of the runtime, only {@code dev.tern.internal}'s executors and two marker
 * interfaces of {@code dev.tern.internal.server}.
 */
package dev.tern.stub;
