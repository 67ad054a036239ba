package dev.tern.internal.server;

import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.ReadAhead;
import dev.tern.internal.SerializingExecutor;
import dev.tern.spi.HandOff;
import dev.tern.spi.ServerStreamListener;
import dev.tern.spi.Stream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Carries one call's stream events from the transport thread to the application: each event becomes
 * a task on the call's {@link SerializingExecutor} (or, when the callbacks run on the transport's
 * thread, its {@link InlineSerializingExecutor}), which runs it with the call's {@link Context}
 * attached. The first task starts the handler, so every listener callback comes after {@code
 * startCall} returned, and callbacks never overlap.
 *
 * <p>What ends a call:
 *
 * <ul>
 *   <li>{@code closed(OK)}: {@code onComplete}, then the context is cancelled (releasing its
 *       deadline timer).
 *   <li>{@code closed(non-OK)}: the context is cancelled at once, on the transport thread, so a
 *       handler busy on the executor sees it; then {@code onCancel}.
 *   <li>The handler or a listener callback throws: the call is closed with a status derived from
 *       the exception (a status exception keeps its own; any other exception becomes UNKNOWN
 *       "Application error processing RPC", telling the client nothing about it, and is logged at
 *       WARNING), the context is cancelled, and nothing more is delivered. An {@link Error} is
 *       rethrown after that cleanup.
 *   <li>A request message fails to parse: the call is closed INTERNAL (RESOURCE_EXHAUSTED when a
 *       compressed message expands past the size limit), the context is cancelled, and {@code
 *       onCancel} is delivered as the last callback.
 *   <li>The context's deadline expires (timer thread): the stream is cancelled with
 *       DEADLINE_EXCEEDED; the transport then reports {@code closed}, as above.
 *   <li>The call's deadline passes while its start waits for the executor: the handler is never
 *       called and no request is decoded; the stream ends DEADLINE_EXCEEDED and its tracers hear
 *       {@link ServerStreamTracer.Refusal#DEADLINE_PASSED_IN_QUEUE}.
 *   <li>The stream ends abnormally (the client cancels, or the deadline's timer fires) while the
 *       start waits for the executor: the call is dropped; the handler never sees it, and no
 *       request is decoded (for the deadline, its tracers hear {@link
 *       ServerStreamTracer.Refusal#DEADLINE_PASSED_IN_QUEUE}).
 * </ul>
 *
 * <p>Thread-safety: the {@link ServerStreamListener} methods are called by the transport, one at a
 * time. {@code listener} and {@code done} are touched only by tasks on the serializing executor,
 * which orders them. {@link #cancelled} runs on the thread that cancelled the context. The start
 * task and an abnormal {@code closed} race for {@code startState} by compare-and-set.
 */
final class ServerCallStreamListener<ReqT, RespT>
    implements ServerStreamListener,
        Context.CancellationListener,
        SerializingExecutor.RejectionHandler {
  private static final Logger logger = Logger.getLogger(ServerCallStreamListener.class.getName());

  private final ServerCallImpl<ReqT, RespT> call;
  private final ServerCallHandler<ReqT, RespT> handler;
  private final Metadata headers;
  private final Context.CancellableContext context;

  /** The context the call's code runs in: {@link #context}, or a tracer's child of it. */
  private final Context callContext;

  /**
   * Orders the call's tasks: a {@link SerializingExecutor} over the call's executor, or an {@link
   * InlineSerializingExecutor} when that executor runs tasks on the transport's thread.
   */
  private final Executor callExecutor;

  /** The server's log of executor rejections (shared by its calls). */
  private final ExecutorRejectionLog rejections;

  /**
   * The client's grpc-timeout in nanoseconds, or -1; for the DEADLINE_EXCEEDED description and
   * {@link #resetIsOrdinary}.
   */
  private final long timeoutNanos;

  /** Reused for every onReady event, which can be frequent on flow-controlled streams. */
  private final Runnable onReadyTask = this::deliverOnReady;

  /**
   * Holds messages read ahead of the handler's requests (streaming request sides); null when the
   * transport's messages go straight to the executor. Set before the transport sees the listener.
   */
  private ReadAhead readAhead;

  /** Set by the startCall task; read by later tasks (ordered by the serializing executor). */
  private ServerCall.Listener<ReqT> listener;

  /** Nothing more may be delivered (executor tasks only). */
  private boolean done;

  /** The executor rejected a task; the call is being torn down (transport thread only). */
  private boolean rejected;

  /**
   * {@link #QUEUED} until the start task runs ({@link #STARTED}), or until the stream ends
   * abnormally first ({@link #DROPPED}: the handler never sees the call); whichever comes first
   * wins, by compare-and-set.
   */
  @SuppressWarnings("unused") // through START_STATE
  private volatile int startState;

  /**
   * How long, by the server's clock, a call with a deadline must have run for its client's reset to
   * be ordinary whatever its time left: a client cancelling at its deadline a call the server read
   * late (its event loop behind on a saturated core) resets it early in the server's count of its
   * time, but not at once, as Rapid Reset (CVE-2023-44487) does to make the server start work it
   * never finishes. A connection's streams each held this long bound such resets to its stream
   * limit ten times a second, which costs no more than the calls themselves.
   */
  static final long ORDINARY_RESET_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final int QUEUED = 0;
  private static final int STARTED = 1;
  private static final int DROPPED = 2;

  private static final VarHandle START_STATE;

  static {
    try {
      START_STATE =
          MethodHandles.lookup()
              .findVarHandle(ServerCallStreamListener.class, "startState", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * @param inline whether {@code executor} runs each task on the calling thread (the server's
   *     direct executor, a non-blocking method's scope): the transport's thread, then
   * @param handOff how the stream's transport hands tasks to {@code executor} (unless inline)
   */
  ServerCallStreamListener(
      ServerCallImpl<ReqT, RespT> call,
      ServerCallHandler<ReqT, RespT> handler,
      Metadata headers,
      Context.CancellableContext context,
      Context callContext,
      Executor executor,
      boolean inline,
      HandOff handOff,
      ExecutorRejectionLog rejections,
      long timeoutNanos) {
    this.call = call;
    this.handler = handler;
    this.headers = headers;
    this.context = context;
    this.callContext = callContext;
    // Inline, the stream's events arrive one at a time on the thread that runs them (the SPI's
    // contract), so only re-entrant ones need ordering: no lock per event.
    this.callExecutor =
        inline
            ? new InlineSerializingExecutor(executor)
            : new SerializingExecutor(executor, handOff, this);
    this.rejections = rejections;
    this.timeoutNanos = timeoutNanos;
  }

  /**
   * Queues {@code handler.startCall}; with a direct executor it runs now. An executor that refuses
   * it at once ends the call ({@link #isRejected} then says so); one handed the call after the
   * transport's batch of reads ends it then.
   */
  void start() {
    execute(this::runStartCall, null);
  }

  /** Whether the executor refused one of this call's tasks (transport thread). */
  boolean isRejected() {
    return rejected;
  }

  /**
   * Creates the {@link ReadAhead} for this call's {@code stream}, through which messages and the
   * half-close then pass; called before the listener is given to the stream.
   */
  ReadAhead readAhead(Stream stream) {
    readAhead =
        new ReadAhead(
            stream::request,
            new ReadAhead.Sink() {
              @Override
              public void deliver(InputStream message) {
                executeDelivery(message);
              }

              @Override
              public void end() {
                execute(ServerCallStreamListener.this::deliverHalfClose, null);
              }
            });
    return readAhead;
  }

  @Override
  public void messageRead(InputStream message) {
    if (readAhead != null) {
      readAhead.messageRead(message);
    } else {
      executeDelivery(message);
    }
  }

  @Override
  public void halfClosed() {
    call.requestReceived();
    if (readAhead != null) {
      readAhead.end();
    } else {
      execute(this::deliverHalfClose, null);
    }
  }

  private void executeDelivery(InputStream message) {
    execute(new MessageDelivery(message), message);
  }

  /** The task delivering one request message; closes it unread if it is dropped. */
  private final class MessageDelivery implements Runnable {
    private final InputStream message;

    MessageDelivery(InputStream message) {
      this.message = message;
    }

    @Override
    public void run() {
      deliverMessage(message);
    }
  }

  /**
   * The executor refused the drain that would have run {@code dropped} (handed over after the
   * transport's batch of reads, on its thread): their messages are closed unread and the call ends
   * as for a refusal at once.
   */
  @Override
  public void rejected(RejectedExecutionException e, List<Runnable> dropped) {
    for (Runnable task : dropped) {
      if (task instanceof ServerCallStreamListener<?, ?>.MessageDelivery delivery) {
        closeQuietly(delivery.message);
      }
    }
    executorRejected(e);
  }

  @Override
  public void onReady() {
    execute(onReadyTask, null);
  }

  @Override
  public void closed(Status status) {
    if (readAhead != null) {
      readAhead.closed();
    }
    call.streamClosed(status);
    if (status.isOk()) {
      execute(this::deliverComplete, null);
      return;
    }
    call.markCancelled();
    context.cancel(status.asRuntimeException());
    if (START_STATE.compareAndSet(this, QUEUED, DROPPED)) {
      // Ended before the executor reached it (its deadline's timer, or a client giving up on a
      // call the server was too busy to start): the handler never sees it, and the application is
      // done with it now.
      if (deadlinePassed()) {
        call.refused(ServerStreamTracer.Refusal.DEADLINE_PASSED_IN_QUEUE);
      }
      call.cancelledCallFinished();
      return;
    }
    execute(this::deliverCancel, null);
  }

  /**
   * {@inheritDoc} For a call with a deadline: at least half of its time has passed, or at least
   * {@link #ORDINARY_RESET_AFTER_NANOS} of it, or its start still waits for the executor (then the
   * client's reset drops it, see {@link #closed}).
   */
  @Override
  public boolean resetIsOrdinary() {
    if (timeoutNanos < 0) {
      return false;
    }
    if (startState == QUEUED) {
      return true;
    }
    Deadline deadline = context.getDeadline();
    if (deadline == null) {
      return false;
    }
    long remaining = deadline.timeRemaining(TimeUnit.NANOSECONDS);
    return remaining <= timeoutNanos / 2 || timeoutNanos - remaining >= ORDINARY_RESET_AFTER_NANOS;
  }

  /** The call's context was cancelled; only a deadline (a TimeoutException) concerns us here. */
  @Override
  public void cancelled(Context cancelledContext) {
    if (cancelledContext.cancellationCause() instanceof TimeoutException) {
      call.cancelStream(
          Status.DEADLINE_EXCEEDED.withDescription(
              "Server deadline exceeded after grpc-timeout of " + timeoutNanos + "ns"));
    }
  }

  /** The executor refused a task: end the call, as nothing can be delivered any more. */
  void executorRejected(RejectedExecutionException e) {
    if (rejected) {
      return;
    }
    rejected = true;
    rejections.rejected(e);
    call.markCancelled();
    context.cancel(e);
    call.cancelStream(
        Status.UNAVAILABLE.withDescription("Server executor rejected the call").withCause(e));
  }

  private void execute(Runnable task, InputStream message) {
    if (rejected) {
      closeQuietly(message);
      return;
    }
    try {
      callExecutor.execute(task);
    } catch (RejectedExecutionException e) {
      closeQuietly(message);
      executorRejected(e);
    }
  }

  private void runStartCall() {
    if (!START_STATE.compareAndSet(this, QUEUED, STARTED)) {
      return; // dropped: its client cancelled it while it waited
    }
    if (deadlinePassed()) {
      notStarted();
      return;
    }
    Context previous = callContext.attach();
    try {
      ServerCall.Listener<ReqT> started = handler.startCall(call, headers);
      if (started == null) {
        throw new NullPointerException("startCall returned a null listener");
      }
      listener = started;
      if (call.getMethodDescriptor().getType() != MethodDescriptor.MethodType.UNARY
          && call.isReady()) {
        // The first onReady, as grpc-java gives it: a handler that requests messages only from
        // its on-ready handler (manual flow control) waits for it. A transport reports later
        // changes; this one is the start's. Not for unary calls, whose handlers cannot use it.
        started.onReady();
      }
    } catch (RuntimeException | Error t) {
      handlerFailed(t);
    } finally {
      callContext.detach(previous);
    }
  }

  /**
   * Whether the call's deadline has passed: its context was cancelled by it, or (its timer late)
   * the clock says so. One clock read, for calls with a deadline. (A call its client cancelled
   * before this task ran was dropped at the cancel and never gets here.)
   */
  private boolean deadlinePassed() {
    if (timeoutNanos < 0) {
      return false;
    }
    if (context.isCancelled()) {
      return context.cancellationCause() instanceof TimeoutException;
    }
    Deadline deadline = context.getDeadline();
    return deadline != null && deadline.isExpired();
  }

  /**
   * The call's deadline passed while its start waited for the executor: the handler never sees it,
   * and the request is never decoded (later tasks find no listener). The stream ends
   * DEADLINE_EXCEEDED, if the deadline's timer has not ended it yet.
   */
  private void notStarted() {
    done = true;
    call.refused(ServerStreamTracer.Refusal.DEADLINE_PASSED_IN_QUEUE);
    call.cancelStream(
        Status.DEADLINE_EXCEEDED.withDescription(
            "Deadline exceeded before the server started the call: it waited for the server's"
                + " executor past its grpc-timeout of "
                + timeoutNanos
                + "ns"));
  }

  private void deliverMessage(InputStream message) {
    if (done || listener == null) {
      closeQuietly(message);
      return;
    }
    MethodDescriptor<ReqT, RespT> method = call.getMethodDescriptor();
    ReqT request;
    try {
      request = method.parseRequest(message);
    } catch (RuntimeException e) {
      parseFailed(e);
      return;
    } finally {
      closeQuietly(message);
    }
    Context previous = callContext.attach();
    try {
      listener.onMessage(request);
    } catch (RuntimeException | Error t) {
      handlerFailed(t);
    } finally {
      callContext.detach(previous);
    }
  }

  private void deliverHalfClose() {
    if (done || listener == null) {
      return;
    }
    Context previous = callContext.attach();
    try {
      listener.onHalfClose();
    } catch (RuntimeException | Error t) {
      handlerFailed(t);
    } finally {
      callContext.detach(previous);
    }
  }

  private void deliverOnReady() {
    if (done || listener == null) {
      return;
    }
    Context previous = callContext.attach();
    try {
      listener.onReady();
    } catch (RuntimeException | Error t) {
      handlerFailed(t);
    } finally {
      callContext.detach(previous);
    }
  }

  private void deliverComplete() {
    try {
      if (done || listener == null) {
        return;
      }
      done = true;
      Context previous = callContext.attach();
      try {
        listener.onComplete();
      } catch (RuntimeException | Error t) {
        logAndRethrowError("onComplete", t);
      } finally {
        callContext.detach(previous);
      }
    } finally {
      context.cancel(null);
    }
  }

  private void deliverCancel() {
    try {
      if (done || listener == null) {
        return;
      }
      done = true;
      Context previous = callContext.attach();
      try {
        listener.onCancel();
      } catch (RuntimeException | Error t) {
        logAndRethrowError("onCancel", t);
      } finally {
        callContext.detach(previous);
      }
    } finally {
      // The last task of the call: every callback before it has returned.
      call.cancelledCallFinished();
    }
  }

  /** The application failed: close the call, cancel its context, deliver nothing more. */
  private void handlerFailed(Throwable t) {
    done = true;
    Status status = Status.fromThrowable(t);
    Metadata trailers = Status.trailersFromThrowable(t);
    if (status.getCode() == Status.Code.UNKNOWN && status.getCause() == t) {
      // Nothing about the exception goes to the client (its type and message may reveal server
      // internals); the server log has it all.
      status = Status.UNKNOWN.withDescription("Application error processing RPC").withCause(t);
      logger.log(
          Level.WARNING,
          "Exception in a handler of " + call.getMethodDescriptor().getFullMethodName(),
          t);
    }
    try {
      call.closeIfOpen(status, trailers != null ? trailers : new Metadata());
    } finally {
      context.cancel(t);
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
  }

  /**
   * A request could not be parsed: the call fails INTERNAL, or RESOURCE_EXHAUSTED if reading it
   * went over the size limit (a compressed message that expands too far), and the handler hears
   * onCancel.
   */
  private void parseFailed(RuntimeException e) {
    Status status = sizeLimitStatus(e);
    if (status == null) {
      status = Status.INTERNAL.withDescription("Failed to parse request");
    }
    call.closeIfOpen(status.withCause(e), new Metadata());
    call.markCancelled();
    context.cancel(e);
    deliverCancel();
  }

  /** The RESOURCE_EXHAUSTED status carried in {@code e}'s cause chain, or null. */
  private static Status sizeLimitStatus(Throwable e) {
    int depth = 0;
    for (Throwable t = e; t != null && depth < 32; t = t.getCause(), depth++) {
      Status status = null;
      if (t instanceof StatusRuntimeException) {
        status = ((StatusRuntimeException) t).getStatus();
      } else if (t instanceof StatusException) {
        status = ((StatusException) t).getStatus();
      }
      if (status != null && status.getCode() == Status.Code.RESOURCE_EXHAUSTED) {
        return status;
      }
    }
    return null;
  }

  private void logAndRethrowError(String callback, Throwable t) {
    logger.log(
        Level.WARNING,
        "Exception in " + callback + " of " + call.getMethodDescriptor().getFullMethodName(),
        t);
    if (t instanceof Error) {
      throw (Error) t;
    }
  }

  private static void closeQuietly(InputStream message) {
    if (message == null) {
      return;
    }
    try {
      message.close();
    } catch (IOException e) {
      logger.log(Level.FINE, "Failed to close a request message", e);
    }
  }
}
