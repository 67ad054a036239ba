/**
 * The server runtime: what turns a transport's streams into the application's calls. Not API.
 *
 * <pre>
 * TransportServer (a transport: Netty, in-process)
 *   -> ServerImpl            lifecycle: start, shutdown, awaitTermination; one per server
 *   -> ServerConnection      one per accepted connection: transport filters, handshake timeout
 *   -> ServerCallDispatcher  one per server: reserved headers, method look-up, admission
 *                            (deadlines, maxConcurrentCalls, the adaptive limit), Context,
 *                            executor
 *   -> ServerCallImpl        the ServerCall a handler holds: its calls become stream operations
 *   -> ServerCallStreamListener  stream events -> tasks on the call's SerializingExecutor
 *   -> the application's ServerCallHandler and listener
 * </pre>
 *
 * <p>Threads: the transport's thread (a Netty event loop) runs {@code ServerConnection} and {@code
 * ServerCallDispatcher} and reads the stream; the handler and its listener run on the call's
 * executor through a {@link dev.tern.internal.SerializingExecutor}, or on the transport's thread
 * when the server has a direct executor or the handler declares {@link
 * dev.tern.internal.server.CallbacksNeverBlock}. The application's {@code ServerCall} methods may
 * come from any thread, one at a time; writes reach the transport through its own queue. {@code
 * TracedServerStream} sits between the call and the stream only when tracers are installed.
 *
 * <p>Admission is decided here, for every transport, before a request is decoded: {@code
 * ServerCallDispatcher.dispatch} refuses a call whose deadline has passed, a unary call whose time
 * left is shorter than recent unary calls' median latency (or, for a server-streaming call with a
 * deadline, its method's streams'), and a call that finds the server's {@code maxConcurrentCalls}
 * or its adaptive limit ({@code AdaptiveConcurrencyLimit}, on by default: for unary calls the
 * server's or one per method, for server-streaming calls with a deadline one per method, {@code
 * AdaptiveLimits}; learned from those calls' latency: the server's own time, from {@code
 * ServerCallImpl.requestReceived} to the handler's close; its slot given back in {@code
 * ServerCallImpl.streamClosed}) taken; the start task of {@code ServerCallStreamListener} refuses
 * one whose deadline passed while it waited for the executor. Tracers hear each refusal ({@code
 * ServerStreamTracer.callRefused}).
 *
 * <p>{@link dev.tern.internal.server.AbstractServerBuilder} is the base every transport's server
 * builder extends. Depends on the API, the SPI and the root runtime package; never on the client
 * channel ({@code dev.tern.internal.channel}).
 */
package dev.tern.internal.server;
