package dev.tern;

import java.io.File;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Builds a {@link Server}. {@link #forPort} finds a transport through {@link
 * java.util.ServiceLoader} (add {@code tern-netty} for HTTP/2).
 *
 * <p>Not thread-safe: configure from one thread, then {@link #build()}.
 */
public abstract class ServerBuilder<T extends ServerBuilder<T>> {
  /** For subclasses. */
  protected ServerBuilder() {}

  /**
   * A builder for a server on {@code port} (0 picks a free port; ask {@link Server#getPort()}).
   *
   * @throws IllegalStateException if no server transport is on the class path
   */
  public static ServerBuilder<?> forPort(int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    return ServerProvider.select(port);
  }

  /** Adds a service; its methods go into the server's immutable method map. */
  public abstract T addService(ServerServiceDefinition service);

  /**
   * Adds a service implementation. A {@link NonBlocking} annotation on its class, or on the methods
   * that implement gRPC methods, declares those methods non-blocking, as {@link
   * #nonBlocking(String)} does.
   *
   * @throws IllegalArgumentException if an annotated method implements no method of the service
   */
  public T addService(BindableService service) {
    ServerServiceDefinition definition = service.bindService();
    List<String> nonBlocking = NonBlockingAnnotations.declared(service.getClass(), definition);
    T self = addService(definition);
    for (String name : nonBlocking) {
      nonBlocking(name);
    }
    return self;
  }

  /** Asked for methods not found among the added services. Default: none. */
  public abstract T fallbackHandlerRegistry(HandlerRegistry registry);

  /**
   * The executor for application callbacks; the caller owns it. Default: a shared work-stealing
   * pool, one worker per core, whose queued callbacks spill to extra threads while handlers that
   * block hold every worker (blocking services belong on virtual threads or their own executor).
   */
  public abstract T executor(Executor executor);

  /** Runs callbacks on the transport thread: fastest, for handlers that never block. */
  public abstract T directExecutor();

  /**
   * Declares that a service (by its name, {@code "pkg.Service"}) or a single method ({@code
   * "pkg.Service/Method"}) never blocks: its callbacks, and the interceptors' around them, run on
   * the transport's thread (a Netty connection's event loop; the calling thread in-process), with
   * no hand-off to the executor, while the server's other methods keep the {@link
   * #executor(Executor)} (or the default). The same as {@link NonBlocking} on the implementation.
   * The choice is made once per method when the server is built; methods found through the {@link
   * #fallbackHandlerRegistry} are not covered. Tern's blocking calls (blocking stubs, a call
   * future's {@code get}, {@code awaitTermination}) made from such a method throw {@link
   * IllegalStateException} instead of stalling the transport thread. Default: none.
   *
   * @throws UnsupportedOperationException if this builder cannot run methods on the transport's
   *     thread
   * @see NonBlocking
   */
  public T nonBlocking(String fullServiceOrMethodName) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support nonBlocking");
  }

  /** An interceptor for every call; the last one added runs first. */
  public abstract T intercept(ServerInterceptor interceptor);

  /** Observes connections and adds attributes for their calls. */
  public abstract T addTransportFilter(ServerTransportFilter filter);

  /** Largest request message accepted; larger ones fail RESOURCE_EXHAUSTED. Default 4 MiB. */
  public abstract T maxInboundMessageSize(int bytes);

  /** Largest request header list accepted. Default 8 KiB. */
  public abstract T maxInboundMetadataSize(int bytes);

  /**
   * How long a new connection may take to become ready (on HTTP/2: the TLS handshake, the client's
   * preface and its first SETTINGS frame) before it is closed. Default 20 s: ample for an honest
   * client on a slow network, and a bound on how long a peer that sends nothing, or trickles its
   * preface, holds a connection.
   */
  public abstract T handshakeTimeout(long timeout, TimeUnit unit);

  /**
   * The most calls this server keeps in progress at once, over all its connections: a call that
   * arrives while {@code max} are open fails at once with RESOURCE_EXHAUSTED ("Server overloaded: N
   * calls in progress, its limit (maxConcurrentCalls); try again later") before its handler runs,
   * so an overloaded server sheds the calls it cannot serve quickly instead of queueing them all. A
   * call counts from its arrival until its stream closes (response sent, cancelled, or deadline
   * passed), whatever its handler still does after that; long-lived streams count for as long as
   * they are open. Default: no bound ({@link Integer#MAX_VALUE}), as the right figure depends on
   * what a call costs; see docs/reliability.md#overload for how to choose one.
   *
   * @throws IllegalArgumentException if {@code max} is not positive
   * @throws UnsupportedOperationException if this builder has no such limit
   */
  public T maxConcurrentCalls(int max) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support maxConcurrentCalls");
  }

  /**
   * The {@code grpc-retry-pushback-ms} that a call refused for overload (by {@link
   * #maxConcurrentCalls} or the {@link #adaptiveConcurrencyLimit}) carries in its trailers (gRFC
   * A6): a client whose retry or hedging policy would send the call again waits {@code millis}
   * first, its back-off then starting over, or with a negative value does not send it again; either
   * way the refusal counts against the client's retry throttling. So a fleet of clients backs off
   * from a shedding server instead of multiplying its load. Default: none, and each client's policy
   * decides alone.
   *
   * @throws UnsupportedOperationException if this builder has no overload limit
   */
  public T overloadRetryPushback(long millis) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support overloadRetryPushback");
  }

  /**
   * Whether the server bounds its unary calls in progress by a limit it learns from their latency
   * (default: on). The limit moves only when the unary calls in progress come to at least half of
   * it, or when most recent ones (or a quarter, with a median past the allowed latency) missed
   * their deadlines while the server had them (or their clients cancelled them before the answer,
   * as clients do at their deadlines), or, while it is still cold (above 256), when a queue keeps
   * growing (over each of two spans of 256 calls in a row, or of fewer calls by as many) while the
   * server serves at its usual pace and calls wait a twentieth of their deadlines or more, or a
   * call arriving then would at the pace the queue moves (calls arriving faster than it serves
   * them, deadlines at risk; a client with a fixed number of calls outstanding, far within their
   * deadlines or without any, is never refused while the limit is cold): then, while the calls
   * queued beyond what the server serves at its unloaded latency are a few (2 at a limit of 10, by
   * Little's law, as TCP Vegas counts them), it grows (while it refuses more than a few calls, a
   * step up stays only if it served more calls a second or kept their latency); when more queue and
   * calls take more than twice their unloaded latency, it shrinks, never below the most calls in
   * progress the server served in time while unbounded (at least 4; 256 before it has measured
   * that); it starts at, and never exceeds, 10,000. The latency it learns from is the server's own:
   * from a call's request fully received to its handler's close, not the client's upload or its
   * reading of the response. A unary call that arrives while the limit is reached fails at once
   * with RESOURCE_EXHAUSTED ("Server overloaded: N unary calls in progress, its adaptive limit
   * (adaptiveConcurrencyLimit); try again later"), before its request is decoded, with the {@link
   * #overloadRetryPushback} if one is set. The limit follows latency, not CPU: handlers that wait
   * (on I/O, on virtual threads) keep their latency as calls grow, and so their limit grows with
   * them; at its floor, it measures two more windows of calls and, unless they are back at the
   * server's usual pace, doubles the limit for a few windows to tell such handlers from queueing.
   * With it, while the server is near that limit, a unary call whose time left on arrival is
   * shorter than the median latency of recent unary calls is not started (DEADLINE_EXCEEDED).
   * Server-streaming calls that carry a deadline meet the same rules with a limit of their method's
   * own (a client that sets a deadline expects the stream to end, so its life is the server's work,
   * and a stream's length is its method's): RESOURCE_EXHAUSTED "Server overloaded: N
   * server-streaming calls of pkg.Service/Method in progress, ...". Other streams are not counted
   * (a watch stream without a deadline, or a client or bidirectional stream, lives at its client's
   * pace, which says nothing of the server's load); {@link #maxConcurrentCalls} bounds them, and
   * stays a fixed ceiling over all calls. {@code adaptiveConcurrencyLimit(false)} turns it off. See
   * docs/reliability.md#overload.
   *
   * @throws UnsupportedOperationException if this builder has no overload limit
   */
  public T adaptiveConcurrencyLimit(boolean enabled) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support adaptiveConcurrencyLimit");
  }

  /**
   * With the {@link #adaptiveConcurrencyLimit} on, one limit per unary method instead of one for
   * the server (default: one for the server): each method's limit, and the recent latency its
   * calls' deadlines are compared with, are learned from its own calls. A server whose unary
   * methods differ in cost by orders of magnitude (a lookup beside a report) then sheds each at its
   * own concurrency, where one limit learns their mix's median. The methods still share the
   * server's CPU, so an overload by the expensive method slows the cheap one and brings its limit
   * down too. A refusal says which method: RESOURCE_EXHAUSTED "Server overloaded: 12 calls of
   * pkg.Service/Method in progress, its adaptive limit per method
   * (adaptiveConcurrencyLimitPerMethod); try again later". Up to 1,000 methods get a limit of their
   * own; any further ones (from a fallback registry) share one. See docs/reliability.md#overload.
   *
   * @throws UnsupportedOperationException if this builder has no overload limit
   */
  public T adaptiveConcurrencyLimitPerMethod(boolean perMethod) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support adaptiveConcurrencyLimitPerMethod");
  }

  /** Registry used for {@link ServerCall#setCompression} lookups. */
  public abstract T compressorRegistry(CompressorRegistry registry);

  /** Decompressors the server accepts and advertises. */
  public abstract T decompressorRegistry(DecompressorRegistry registry);

  /**
   * Serves TLS with this certificate chain and private key (PEM).
   *
   * @throws UnsupportedOperationException if the transport has no TLS (e.g. in-process)
   */
  public T useTransportSecurity(File certChain, File privateKey) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not support TLS");
  }

  /** See {@link #useTransportSecurity(File, File)}. */
  public T useTransportSecurity(InputStream certChain, InputStream privateKey) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not support TLS");
  }

  /**
   * Records the calls of every method this server dispatches (from the added services and the
   * fallback registry) in {@code binaryLog}; null (the default) records nothing. The server does
   * not close the log.
   *
   * @throws UnsupportedOperationException if this builder has no binary log support
   */
  public T setBinaryLog(BinaryLog binaryLog) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support binary logs");
  }

  /**
   * Traces every stream the server accepts with a tracer from {@code factory} (see {@link
   * ServerStreamTracer}); factories run in the order added. Servers with none pay nothing.
   *
   * @throws UnsupportedOperationException if this builder has no tracer support
   */
  public T addStreamTracerFactory(ServerStreamTracer.Factory factory) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support stream tracers");
  }

  /**
   * Builds the server; call {@link Server#start()} to serve.
   *
   * @throws IllegalArgumentException if a name given to {@link #nonBlocking(String)} is no added
   *     service or method (the message names each)
   */
  public abstract Server build();
}
