package dev.tern.internal.server;

import dev.tern.BinaryLog;
import dev.tern.CompressorRegistry;
import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.Decompressor;
import dev.tern.DecompressorRegistry;
import dev.tern.HandlerRegistry;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerMethodDefinition;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.channelz.CallCounter;
import dev.tern.internal.ReadAhead;
import dev.tern.internal.SerializingExecutor;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.GrpcTimeoutCodec;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerStreamListener;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Turns a new server stream into a running call: reads and removes the reserved request headers,
 * finds the method, creates the call's {@link Context}, and starts the handler on the call's
 * executor. Streams that cannot become calls (unknown method, bad {@code grpc-timeout}, unknown
 * {@code grpc-encoding}) are closed here with a status and never reach the application.
 *
 * <p>Immutable; thread-safe: transports call {@link #dispatch} from many threads at once. The
 * fallback registry is asked on the transport thread, so it must not block.
 */
public final class ServerCallDispatcher {
  private static final Logger logger = Logger.getLogger(ServerCallDispatcher.class.getName());

  private static final String IDENTITY = "identity";

  /** The status of a call whose deadline had passed when it arrived. */
  private static final Status DEADLINE_ON_ARRIVAL =
      Status.DEADLINE_EXCEEDED.withDescription(
          "Deadline exceeded before the server started the call: grpc-timeout of 0 on arrival");

  /** {@code "pkg.Service/Method"} to definition, builder interceptors already applied. */
  private final Map<String, ServerMethodDefinition<?, ?>> methods;

  /** The builder's interceptors, applied per call only to methods the fallback registry finds. */
  private final List<ServerInterceptor> interceptors;

  private final HandlerRegistry fallbackRegistry;

  /** Wraps methods outside the interceptors; null (no binary log) leaves them as they are. */
  private final BinaryLog binaryLog;

  private final Executor executor;

  /**
   * Runs each task on the calling thread: a {@link CallbacksNeverBlock} handler's callbacks, and
   * every call's after the builder's {@code directExecutor()}, on the transport's thread.
   */
  static final Executor DIRECT = Runnable::run;

  private final int maxInboundMessageSize;
  private final CompressorRegistry compressorRegistry;
  private final DecompressorRegistry decompressorRegistry;
  private final CallCounter calls;

  /** The server's tracer factories; empty (checked once per stream) when nothing is traced. */
  private final List<ServerStreamTracer.Factory> tracerFactories;

  /** The bound on calls in progress; null when unbounded (then the call path never counts). */
  private final ConcurrentCallLimit callLimit;

  /**
   * The bounds on unary calls in progress learned from their latency, the server's or one per
   * method; null when switched off (then the call path neither counts nor reads the clock for it).
   */
  private final AdaptiveLimits adaptiveLimits;

  /** The {@code grpc-retry-pushback-ms} value calls refused for overload carry; null for none. */
  private final String retryPushback;

  /** The clock calls' deadlines are measured by. */
  private final Deadline.Ticker ticker;

  /** One WARNING for many executor rejections (a bounded executor shedding load). */
  private final ExecutorRejectionLog rejections = new ExecutorRejectionLog();

  /**
   * Creates a dispatcher.
   *
   * @param services flattened into one immutable map, see {@link #methodMap}
   * @param nonBlocking names of services and methods (among {@code services}) whose callbacks run
   *     on the transport's thread, see {@link NonBlockingHandler}
   * @param interceptors the builder's, in the order added (the last one sees calls first); applied
   *     once here to {@code services}, and per call to methods found in the fallback registry
   * @param fallbackRegistry asked when {@code services} have no such method; null for none
   * @param binaryLog wraps every method, outside the interceptors (once for {@code services}, per
   *     call for the fallback registry's methods); null for none
   * @param executor runs application callbacks (through a per-call {@link SerializingExecutor})
   * @param calls the server's call counts (channelz): every dispatched stream starts and ends there
   * @param tracerFactories each gives every dispatched stream a tracer; empty for none
   * @param maxConcurrentCalls calls in progress at most; beyond it a call fails RESOURCE_EXHAUSTED
   *     before its handler runs ({@link Integer#MAX_VALUE}: no bound, and no counting)
   * @param overloadRetryPushback the {@code grpc-retry-pushback-ms} of a call refused by {@code
   *     maxConcurrentCalls} or the adaptive limit, in milliseconds (negative: do not retry); null
   *     for none
   * @param adaptiveConcurrencyLimit whether unary calls in progress (and each server-streaming
   *     method's calls with a deadline) are also bounded by a limit learned from their latency (see
   *     {@link AdaptiveConcurrencyLimit}, {@link AdaptiveLimits}), and, while that limit is
   *     {@linkplain AdaptiveConcurrencyLimit#busy busy}, a call whose time left is shorter than
   *     their recent median latency is not started
   * @param adaptiveLimitPerMethod with {@code adaptiveConcurrencyLimit}, one such limit (and recent
   *     latency) per method instead of one for the server
   * @param ticker the clock calls' deadlines are measured by
   */
  public ServerCallDispatcher(
      Collection<ServerServiceDefinition> services,
      Set<String> nonBlocking,
      List<ServerInterceptor> interceptors,
      HandlerRegistry fallbackRegistry,
      BinaryLog binaryLog,
      Executor executor,
      int maxInboundMessageSize,
      CompressorRegistry compressorRegistry,
      DecompressorRegistry decompressorRegistry,
      CallCounter calls,
      List<ServerStreamTracer.Factory> tracerFactories,
      int maxConcurrentCalls,
      Long overloadRetryPushback,
      boolean adaptiveConcurrencyLimit,
      boolean adaptiveLimitPerMethod,
      Deadline.Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.callLimit =
        maxConcurrentCalls == Integer.MAX_VALUE
            ? null
            : new ConcurrentCallLimit(maxConcurrentCalls);
    this.adaptiveLimits =
        adaptiveConcurrencyLimit ? new AdaptiveLimits(ticker, adaptiveLimitPerMethod) : null;
    // gRFC A6: any negative value means "do not retry"; -1 says so plainly.
    this.retryPushback =
        overloadRetryPushback == null
            ? null
            : Long.toString(overloadRetryPushback < 0 ? -1 : overloadRetryPushback);
    this.calls = Objects.requireNonNull(calls, "calls");
    this.tracerFactories = List.copyOf(tracerFactories);
    this.interceptors = List.copyOf(interceptors);
    this.methods =
        methodMap(
            Objects.requireNonNull(services, "services"),
            Objects.requireNonNull(nonBlocking, "nonBlocking"),
            this.interceptors,
            binaryLog);
    this.fallbackRegistry = fallbackRegistry;
    this.binaryLog = binaryLog;
    this.executor = Objects.requireNonNull(executor, "executor");
    if (maxInboundMessageSize < 0) {
      throw new IllegalArgumentException(
          "maxInboundMessageSize must be >= 0: " + maxInboundMessageSize);
    }
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.compressorRegistry = Objects.requireNonNull(compressorRegistry, "compressorRegistry");
    this.decompressorRegistry =
        Objects.requireNonNull(decompressorRegistry, "decompressorRegistry");
  }

  /**
   * Flattens services into {@code "pkg.Service/Method" -> definition}, wrapping each handler with
   * {@code interceptors} once (the last interceptor sees calls first), then, when there is one, by
   * the binary log, and last, for the services and methods {@code nonBlocking} names, by a {@link
   * NonBlockingHandler}, so that the per-call path is one map lookup with no wrapping.
   */
  static Map<String, ServerMethodDefinition<?, ?>> methodMap(
      Collection<ServerServiceDefinition> services,
      Set<String> nonBlocking,
      List<ServerInterceptor> interceptors,
      BinaryLog binaryLog) {
    Map<String, ServerMethodDefinition<?, ?>> map = new HashMap<>();
    for (ServerServiceDefinition service : services) {
      for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
        ServerMethodDefinition<?, ?> wrapped =
            interceptors.isEmpty() ? method : ServerInterceptors.wrap(method, interceptors);
        if (binaryLog != null) {
          wrapped = logged(binaryLog, wrapped);
        }
        MethodDescriptor<?, ?> descriptor = method.getMethodDescriptor();
        if (nonBlocking.contains(descriptor.getFullMethodName())
            || nonBlocking.contains(descriptor.getServiceName())) {
          wrapped = nonBlocking(wrapped);
        }
        map.put(descriptor.getFullMethodName(), wrapped);
      }
    }
    return Map.copyOf(map);
  }

  /**
   * Handles {@code ServerTransportListener.streamCreated}: on return the stream has its listener.
   *
   * @param headers the request headers; the reserved {@code grpc-timeout}, {@code grpc-encoding}
   *     and {@code grpc-accept-encoding} are removed before the application sees them
   * @param scheduler runs the call's deadline timer
   * @param callContextParent the context the call's context derives from (its values, never a
   *     cancellation or deadline: it must not be cancellable)
   */
  public void dispatch(
      ServerStream stream,
      String fullMethodName,
      Metadata headers,
      ScheduledExecutorService scheduler,
      Context callContextParent) {
    calls.callStarted();
    if (!tracerFactories.isEmpty()) {
      stream = TracedServerStream.trace(stream, tracerFactories, fullMethodName, headers);
    }
    String timeoutValue = headers.get(GrpcHeaders.TIMEOUT);
    String encoding = headers.get(GrpcHeaders.MESSAGE_ENCODING);
    String acceptEncoding = headers.get(GrpcHeaders.MESSAGE_ACCEPT_ENCODING);
    headers.discardAll(GrpcHeaders.TIMEOUT);
    headers.discardAll(GrpcHeaders.MESSAGE_ENCODING);
    headers.discardAll(GrpcHeaders.MESSAGE_ACCEPT_ENCODING);

    long timeoutNanos = -1;
    if (timeoutValue != null) {
      try {
        timeoutNanos = GrpcTimeoutCodec.decode(timeoutValue);
      } catch (IllegalArgumentException e) {
        rejectCall(
            stream,
            Status.INTERNAL.withDescription("Invalid grpc-timeout: '" + timeoutValue + "'"),
            new Metadata());
        return;
      }
    }

    Decompressor decompressor = null;
    if (encoding != null) {
      decompressor = decompressorRegistry.lookupDecompressor(encoding);
      if (decompressor == null && !IDENTITY.equals(encoding)) {
        Metadata trailers = new Metadata();
        String accepted = decompressorRegistry.getAdvertisedMessageEncodingsHeader();
        if (!accepted.isEmpty()) {
          trailers.put(GrpcHeaders.MESSAGE_ACCEPT_ENCODING, accepted);
        }
        rejectCall(
            stream,
            Status.UNIMPLEMENTED.withDescription("Can't find decompressor for " + encoding),
            trailers);
        return;
      }
    }

    ServerMethodDefinition<?, ?> method = methods.get(fullMethodName);
    if (method == null && fallbackRegistry != null) {
      try {
        method = fallbackRegistry.lookupMethod(fullMethodName, stream.getAuthority());
        if (method != null && !interceptors.isEmpty()) {
          // Builder interceptors (often authentication) must guard dynamic services too.
          method = ServerInterceptors.wrap(method, interceptors);
        }
        if (method != null && binaryLog != null) {
          method = logged(binaryLog, method);
        }
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "Fallback handler registry failed for " + fullMethodName, e);
        rejectCall(
            stream,
            Status.UNKNOWN.withDescription("Fallback handler registry failed").withCause(e),
            new Metadata());
        return;
      }
    }
    if (method == null) {
      rejectCall(
          stream,
          Status.UNIMPLEMENTED.withDescription("Method not found: " + fullMethodName),
          new Metadata());
      return;
    }

    // Admission: the one place where the server decides, before decoding anything of the call,
    // whether to start it at all.
    if (timeoutNanos == 0) {
      refuse(
          stream,
          ServerStreamTracer.Refusal.DEADLINE_PASSED_ON_ARRIVAL,
          DEADLINE_ON_ARRIVAL,
          new Metadata());
      return;
    }
    AdaptiveConcurrencyLimit adaptive = adaptiveLimit(method.getMethodDescriptor(), timeoutNanos);
    if (adaptive != null
        && timeoutNanos > 0
        && timeoutNanos < adaptive.recentLatencyNanos()
        && adaptive.busy()) {
      refuse(
          stream,
          ServerStreamTracer.Refusal.DEADLINE_SHORTER_THAN_RECENT_LATENCY,
          shorterThanRecentLatency(
              timeoutNanos, adaptive.recentLatencyNanos(), method.getMethodDescriptor()),
          new Metadata());
      return;
    }
    if (callLimit != null && !callLimit.tryAcquire()) {
      refuse(
          stream,
          ServerStreamTracer.Refusal.MAX_CONCURRENT_CALLS,
          callLimit.exhausted(),
          overloadTrailers());
      return;
    }
    if (adaptive != null && !adaptive.tryAcquire()) {
      if (callLimit != null) {
        callLimit.release();
      }
      refuse(
          stream,
          ServerStreamTracer.Refusal.ADAPTIVE_CONCURRENCY_LIMIT,
          adaptiveLimitReached(adaptive.limit(), method.getMethodDescriptor()),
          overloadTrailers());
      return;
    }
    if (decompressor != null) {
      stream.setDecompressor(decompressor);
    }
    stream.setMaxInboundMessageSize(maxInboundMessageSize);
    startCall(
        stream,
        method,
        headers,
        timeoutNanos,
        acceptEncoding,
        scheduler,
        callContextParent,
        adaptive);
  }

  private static Status shorterThanRecentLatency(
      long timeoutNanos, long recentNanos, MethodDescriptor<?, ?> method) {
    return Status.DEADLINE_EXCEEDED.withDescription(
        "Deadline too short: the call's grpc-timeout of "
            + timeoutNanos
            + (method.getType() == MethodType.UNARY
                ? " ns is shorter than the server's recent median unary call latency of "
                : " ns is shorter than the recent median latency of "
                    + method.getFullMethodName()
                    + "'s server-streaming calls, ")
            + recentNanos
            + " ns; not started");
  }

  /**
   * The adaptive limit a call of {@code method} meets, or null: a unary call meets the server's (or
   * its method's); a server-streaming call with a deadline its method's, since its client expects
   * it to end, so its life is the server's work; other streams none, since their life is their
   * client's (a watch stream held for hours, a client stream at its sender's pace) and says nothing
   * of the server's load.
   */
  private AdaptiveConcurrencyLimit adaptiveLimit(MethodDescriptor<?, ?> method, long timeoutNanos) {
    if (adaptiveLimits == null) {
      return null;
    }
    MethodType type = method.getType();
    if (type == MethodType.UNARY) {
      return adaptiveLimits.forMethod(method.getFullMethodName());
    }
    if (type == MethodType.SERVER_STREAMING && timeoutNanos > 0) {
      return adaptiveLimits.forServerStream(method.getFullMethodName());
    }
    return null;
  }

  /** A refusal by the adaptive limit {@code limit} that a call of {@code method} met. */
  private Status adaptiveLimitReached(int limit, MethodDescriptor<?, ?> method) {
    if (method.getType() != MethodType.UNARY) {
      return Status.RESOURCE_EXHAUSTED.withDescription(
          "Server overloaded: "
              + limit
              + " server-streaming calls of "
              + method.getFullMethodName()
              + " in progress, its adaptive limit (adaptiveConcurrencyLimit, one per streaming"
              + " method); try again later");
    }
    return Status.RESOURCE_EXHAUSTED.withDescription(
        adaptiveLimits.perMethod()
            ? "Server overloaded: "
                + limit
                + " calls of "
                + method.getFullMethodName()
                + " in progress, its adaptive limit per method"
                + " (adaptiveConcurrencyLimitPerMethod); try again later"
            : "Server overloaded: "
                + limit
                + " unary calls in progress, its adaptive limit (adaptiveConcurrencyLimit); try"
                + " again later");
  }

  /** The trailers of a call refused for overload: new for each, as sent. */
  private Metadata overloadTrailers() {
    Metadata trailers = new Metadata();
    if (retryPushback != null) {
      trailers.put(GrpcHeaders.RETRY_PUSHBACK_MS, retryPushback);
    }
    return trailers;
  }

  /**
   * The descriptor of the method {@code fullMethodName} names, from the services or else the
   * fallback registry (whose failure is logged and taken as no method); null if neither has it.
   */
  MethodDescriptor<?, ?> lookupMethod(String fullMethodName, String authority) {
    ServerMethodDefinition<?, ?> method = methods.get(fullMethodName);
    if (method == null && fallbackRegistry != null) {
      try {
        method = fallbackRegistry.lookupMethod(fullMethodName, authority);
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "Fallback handler registry failed for " + fullMethodName, e);
        return null;
      }
    }
    return method == null ? null : method.getMethodDescriptor();
  }

  /** The fallback registry, or null. */
  HandlerRegistry fallbackRegistry() {
    return fallbackRegistry;
  }

  /** {@code method} as the binary log wraps it, checked to still be the same method. */
  private static ServerMethodDefinition<?, ?> logged(
      BinaryLog binaryLog, ServerMethodDefinition<?, ?> method) {
    ServerMethodDefinition<?, ?> wrapped =
        Objects.requireNonNull(binaryLog.wrapMethodDefinition(method), "wrapMethodDefinition");
    String name = method.getMethodDescriptor().getFullMethodName();
    if (!wrapped.getMethodDescriptor().getFullMethodName().equals(name)
        || wrapped.getMethodDescriptor().getType() != method.getMethodDescriptor().getType()) {
      throw new IllegalStateException(
          "BinaryLog.wrapMethodDefinition changed the method " + name + " into " + wrapped);
    }
    return wrapped;
  }

  private static <ReqT, RespT> ServerMethodDefinition<ReqT, RespT> nonBlocking(
      ServerMethodDefinition<ReqT, RespT> method) {
    return method.withServerCallHandler(
        new NonBlockingHandler<>(
            method.getServerCallHandler(), method.getMethodDescriptor().getFullMethodName()));
  }

  /**
   * The executor of a {@link CallbacksNeverBlock} handler's callbacks: its method's scope for a
   * method declared non-blocking, else (a blocking handler) the transport's thread unmarked.
   */
  private static Executor neverBlockingExecutor(ServerCallHandler<?, ?> handler) {
    return handler instanceof NonBlockingHandler<?, ?> declared ? declared.scope() : DIRECT;
  }

  private static int requestsAtStart(ServerCallHandler<?, ?> handler) {
    if (handler instanceof RequestsAtStart) {
      return Math.max(0, ((RequestsAtStart) handler).messagesRequestedAtStart());
    }
    return 0;
  }

  /** Like {@link #rejectCall}, for a call refused at admission: its tracers hear why. */
  private void refuse(
      ServerStream stream, ServerStreamTracer.Refusal refusal, Status status, Metadata trailers) {
    if (stream instanceof TracedServerStream traced) {
      traced.callRefused(refusal);
    }
    rejectCall(stream, status, trailers);
  }

  /** Like {@link #reject}, for a stream counted as a started call: it counts as failed. */
  private void rejectCall(ServerStream stream, Status status, Metadata trailers) {
    calls.callEnded(false);
    reject(stream, status, trailers);
  }

  /** Closes a stream that will not become a call; it still gets a listener, which drops events. */
  public static void reject(ServerStream stream, Status status, Metadata trailers) {
    stream.setListener(DiscardingStreamListener.INSTANCE);
    stream.close(status, trailers);
  }

  private <ReqT, RespT> void startCall(
      ServerStream stream,
      ServerMethodDefinition<ReqT, RespT> method,
      Metadata headers,
      long timeoutNanos,
      String acceptEncoding,
      ScheduledExecutorService scheduler,
      Context callContextParent,
      AdaptiveConcurrencyLimit adaptive) {
    // Values and cancellation are per call, never inherited from the transport thread's context:
    // the parent only holds the server's values.
    Context.CancellableContext context =
        timeoutNanos < 0
            ? callContextParent.withCancellation()
            : callContextParent.withDeadline(
                Deadline.after(timeoutNanos, TimeUnit.NANOSECONDS, ticker), scheduler);
    ServerCallImpl<ReqT, RespT> call =
        new ServerCallImpl<>(
            stream,
            method.getMethodDescriptor(),
            compressorRegistry,
            decompressorRegistry.getAdvertisedMessageEncodingsHeader(),
            acceptEncoding,
            calls,
            callLimit,
            adaptive,
            timeoutNanos);
    Context callContext = context;
    if (stream instanceof TracedServerStream traced) {
      callContext = traced.filterContext(context);
      traced.callStarted(
          new ServerStreamTracer.ServerCallInfo<>(
              method.getMethodDescriptor(), stream.getAttributes(), stream.getAuthority()));
    }
    boolean neverBlocks = method.getServerCallHandler() instanceof CallbacksNeverBlock;
    Executor callExecutor =
        neverBlocks ? neverBlockingExecutor(method.getServerCallHandler()) : executor;
    // Callbacks on the transport's thread (both of these executors run tasks where they are given).
    boolean inline = neverBlocks || executor == DIRECT;
    ServerCallStreamListener<ReqT, RespT> listener =
        new ServerCallStreamListener<>(
            call,
            method.getServerCallHandler(),
            headers,
            context,
            callContext,
            callExecutor,
            inline,
            stream.handOff(),
            rejections,
            timeoutNanos);
    ReadAhead readAhead = null;
    if (!method.getMethodDescriptor().getType().clientSendsOneMessage()
        && !inline
        && stream.requestsCrossThreads()) {
      // Callbacks on another thread than the transport's: each request would be a hand-off.
      readAhead = listener.readAhead(stream);
      call.readAhead(readAhead);
    }
    stream.setListener(listener);
    int ahead = requestsAtStart(method.getServerCallHandler());
    call.expectRequestsAhead(ahead);
    listener.start();
    if (listener.isRejected()) {
      return;
    }
    if (ahead > 0) {
      // After start(): a message this makes available queues behind startCall.
      if (readAhead != null) {
        readAhead.request(ahead);
      } else {
        stream.request(ahead);
      }
    }
    if (timeoutNanos >= 0) {
      // Registered last: an already expired deadline cancels the stream at once, and its onCancel
      // must queue behind startCall.
      context.addListener(listener, Runnable::run);
    }
  }

  /**
   * The listener of a rejected stream: closes messages, ignores everything else. Stateless;
   * thread-safe.
   */
  private static final class DiscardingStreamListener implements ServerStreamListener {
    static final DiscardingStreamListener INSTANCE = new DiscardingStreamListener();

    @Override
    public void messageRead(InputStream message) {
      try {
        message.close();
      } catch (IOException e) {
        logger.log(Level.FINE, "Failed to close a discarded message", e);
      }
    }

    @Override
    public void onReady() {}

    @Override
    public void halfClosed() {}

    @Override
    public void closed(Status status) {}
  }
}
