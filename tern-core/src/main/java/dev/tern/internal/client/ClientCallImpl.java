package dev.tern.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Compressor;
import dev.tern.Context;
import dev.tern.Contexts;
import dev.tern.Deadline;
import dev.tern.LoadBalancer;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.channelz.CallCounter;
import dev.tern.internal.ReadAhead;
import dev.tern.internal.config.MethodConfig;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.GrpcTimeoutCodec;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import java.io.InputStream;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The channel's {@link ClientCall}: turns the application's calls into stream operations and the
 * stream's events into listener callbacks.
 *
 * <p>The call is born configured: the channel chose its method config before making it. On {@link
 * #start} it applies that config to its options (deadline, wait-for-ready, message limits), works
 * out the effective deadline (the earlier of the options' and the current {@link Context}'s),
 * replaces any reserved headers the application set with its own ({@code grpc-timeout}, {@code
 * grpc-encoding}, {@code grpc-accept-encoding}), gets a stream from its {@link
 * ClientStreamProvider} (handing it the pick arguments, never itself), and arms a deadline timer
 * and a context cancellation listener; both are removed when the call closes. A call that cannot
 * start (deadline already passed, context already cancelled, unknown compressor, cancelled before
 * start) closes at once without a stream.
 *
 * <p>The listener side (executors, parsing, failing callbacks, exactly one {@code onClose}) is
 * {@link ClientCallEvents}. {@code onReady} is not delivered once the call is half-closed: it can
 * send nothing more. A unary or server-streaming call made by the stubs half-closes before its
 * stream opens, so it costs its executor no task for the readiness the opened stream reports.
 *
 * <p>Transparent retry: if the stream closes as REFUSED or DROPPED (the server never processed it)
 * before the call received anything, and the call was not cancelled, it is retried on a fresh
 * stream from the channel (requests, the request message and a half-close are replayed), as often
 * as {@link TransparentRetry} allows: once after a refusal, up to {@value
 * TransparentRetry#MAX_DROPPED} times for streams that never left the client. A call whose client
 * sends one message (unary, server streaming) keeps that message for the replay, so it is retried
 * even when its stream was refused after the message was handed over, as happens to a call that
 * picked a connection just as its server began a graceful shutdown. Other calls are retried only
 * before their first message: once one has been handed to a stream, the status is reported as is.
 * Under a retry or hedging policy the {@link SelfRetryingStream} retries by itself; it reports a
 * stream not processed only once it has committed to that attempt and no longer holds the request
 * (one that outgrew the retry buffer), and then a call that sends one message sends it again here.
 *
 * <p>Thread-safety: the {@code ClientCall} methods are called by one application thread at a time
 * (the API contract). Stream events arrive on a transport thread; the deadline timer and context
 * listener may call {@link #cancelStream} from other threads. Fields shared across these threads
 * are volatile. While a transparent retry is still possible ({@code retryable}), the methods whose
 * effect a retry must replay record it under the {@link ClientCallEvents} object's monitor, which
 * the retry also holds while it swaps in the new stream; once {@code retryable} is false the stream
 * never changes again and they skip the lock.
 */
public final class ClientCallImpl<ReqT, RespT> extends ClientCall<ReqT, RespT>
    implements LoadBalancer.PickSubchannelArgs {
  private static final Executor DIRECT = Runnable::run;
  private static final String IDENTITY_ENCODING = "identity";

  private final MethodDescriptor<ReqT, RespT> method;
  private final ClientStreamProvider streamProvider;
  private final CallSettings settings;
  private final Executor appExecutor;
  private final ClientCallEvents<RespT> events;
  private final CallCounter channelCalls; // null: not counted

  /**
   * Holds response messages read ahead of the application's requests: calls whose server streams,
   * with callbacks off the transport's thread, on transports where a request crosses threads; else
   * null.
   */
  private final ReadAhead readAhead;

  /** The call's method config, chosen by the channel before the call was made. */
  private final MethodConfig methodConfig;

  // Written by the application thread in start(), before the stream exists; transport, timer and
  // callback threads read them after events the stream publishes.
  /** The caller's options, then (from start) as the method config adjusts them. */
  private CallOptions callOptions;

  private boolean started;

  /** Written by the application thread; read by the stream's thread to skip a useless onReady. */
  private volatile boolean halfClosed;

  private Context context;
  private Compressor compressor;
  private Metadata headers;
  private volatile Deadline deadline;

  private volatile ClientStream stream;
  private volatile Status cancelStatus;
  private volatile boolean closeReceived;

  @GuardedBy("this")
  private ScheduledFuture<?> deadlineFuture;

  /** True while a transparent retry may still happen; cleared under the events monitor. */
  private volatile boolean retryable;

  // Replay state for a retry.
  @GuardedBy("events")
  private int requested;

  @GuardedBy("events")
  private boolean replayHalfClose;

  @GuardedBy("events")
  private int replayCompression; // 0 unset, 1 on, -1 off

  /** The one request of a unary or server-streaming call, serialized again for a retry. */
  @GuardedBy("events")
  private ReqT replayMessage;

  /** The {@link TransparentRetry} state of the call. */
  @GuardedBy("events")
  private int transparentRetries = TransparentRetry.NONE;

  /** Set (on the closing stream's thread) when a dropped stream used up the transparent retries. */
  private boolean droppedTooOften;

  /**
   * @param methodConfig the call's method config ({@link MethodConfig#NONE} if none): it adjusts
   *     the options when the call starts (deadline, wait-for-ready, message limits), and its retry
   *     or hedging policy goes to {@code streamProvider} with each stream asked for
   * @param settings the channel's settings for its calls
   * @param channelCalls the channel's call counts (channelz): this call starts and ends there; null
   *     for a call on one subchannel (the channel of a subchannel: health checks), which channelz
   *     shows as a stream of that subchannel's connection
   */
  public ClientCallImpl(
      MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions,
      MethodConfig methodConfig,
      ClientStreamProvider streamProvider,
      CallSettings settings,
      CallCounter channelCalls) {
    this.method = Objects.requireNonNull(method, "method");
    this.callOptions = Objects.requireNonNull(callOptions, "callOptions");
    this.methodConfig = Objects.requireNonNull(methodConfig, "methodConfig");
    this.streamProvider = streamProvider;
    this.settings = settings;
    Executor callExecutor = callOptions.getExecutor();
    this.appExecutor = callExecutor != null ? callExecutor : settings.executor();
    boolean inline = callExecutor == null && settings.directExecutor();
    this.events = new ClientCallEvents<>(this, method, inline);
    this.channelCalls = channelCalls;
    this.readAhead =
        !inline && !method.getType().serverSendsOneMessage() && settings.requestsCrossThreads()
            ? new ReadAhead(this::requestFromStream, events)
            : null;
  }

  /** See {@link #readAhead}; null if the call does not read ahead. */
  ReadAhead readAhead() {
    return readAhead;
  }

  @Override
  public void start(Listener<RespT> responseListener, Metadata headers) {
    Objects.requireNonNull(responseListener, "responseListener");
    Objects.requireNonNull(headers, "headers");
    if (started) {
      throw new IllegalStateException("call already started");
    }
    started = true;
    if (channelCalls != null) {
      channelCalls.callStarted();
    }
    events.init(responseListener, appExecutor);
    Context ctx = Context.current();
    if (methodConfig != MethodConfig.NONE) {
      callOptions = methodConfig.applyTo(callOptions, settings.ticker());
    }
    Status early = cancelStatus; // cancel() before start()
    if (early == null && ctx.isCancelled()) {
      early = Contexts.statusFromCancelled(ctx);
    }
    Compressor chosen = null;
    String compressorName = callOptions.getCompressor();
    if (early == null && compressorName != null) {
      chosen = settings.compressorRegistry().lookupCompressor(compressorName);
      if (chosen == null) {
        early =
            Status.INTERNAL.withDescription("Unable to find compressor by name " + compressorName);
      } else if (IDENTITY_ENCODING.equals(chosen.getMessageEncoding())) {
        chosen = null;
      }
    }
    Deadline effective = null;
    if (early == null) {
      effective = earlier(callOptions.getDeadline(), ctx.getDeadline());
      if (effective != null) {
        long remaining = effective.timeRemaining(TimeUnit.NANOSECONDS);
        if (remaining <= 0) {
          early =
              Status.DEADLINE_EXCEEDED.withDescription(
                  "deadline exceeded before the call started: it passed "
                      + formatSeconds(-remaining)
                      + " ago");
        }
      }
    }
    if (early != null) {
      closeWithoutStream(early);
      return;
    }
    this.compressor = chosen;
    this.deadline = effective;
    this.context = ctx;
    this.headers = headers;
    prepareHeaders();
    retryable = true;
    ClientStream created = streamProvider.newStream(this, methodConfig, effective, appExecutor);
    if (created instanceof SelfRetryingStream && !method.getType().clientSendsOneMessage()) {
      // It retries (transparently too) by itself. A call that sends one message keeps it, as the
      // stream no longer does once its request outgrew the retry buffer and it committed to an
      // attempt: if the server did not process that attempt, this call sends it again.
      retryable = false;
    }
    stream = created;
    startStream(created);
    if (effective != null && !closeReceived) {
      scheduleDeadline(effective);
    }
    if (!closeReceived) {
      ctx.addListener(events, DIRECT);
      if (closeReceived) {
        ctx.removeListener(events); // closed meanwhile: do not leak the registration
      }
    }
  }

  // The call as its balancer's picker sees it (the call is its own pick arguments, so picking
  // allocates nothing). Valid once start() has made the headers.

  @Override
  public CallOptions getCallOptions() {
    return callOptions;
  }

  @Override
  public Metadata getHeaders() {
    return headers;
  }

  @Override
  public MethodDescriptor<?, ?> getMethodDescriptor() {
    return method;
  }

  private void prepareHeaders() {
    headers.discardAll(GrpcHeaders.TIMEOUT);
    headers.discardAll(GrpcHeaders.MESSAGE_ENCODING);
    headers.discardAll(GrpcHeaders.MESSAGE_ACCEPT_ENCODING);
    if (deadline != null) {
      headers.put(
          GrpcHeaders.TIMEOUT,
          GrpcTimeoutCodec.encode(deadline.timeRemaining(TimeUnit.NANOSECONDS)));
    }
    if (compressor != null) {
      headers.put(GrpcHeaders.MESSAGE_ENCODING, compressor.getMessageEncoding());
    }
    String acceptEncoding = settings.decompressorRegistry().getAdvertisedMessageEncodingsHeader();
    if (!acceptEncoding.isEmpty()) {
      headers.put(GrpcHeaders.MESSAGE_ACCEPT_ENCODING, acceptEncoding);
    }
  }

  private void startStream(ClientStream target) {
    Integer maxInbound = callOptions.getMaxInboundMessageSize();
    target.setMaxInboundMessageSize(
        maxInbound != null ? maxInbound : settings.maxInboundMessageSize());
    Integer maxOutbound = callOptions.getMaxOutboundMessageSize();
    target.setMaxOutboundMessageSize(maxOutbound != null ? maxOutbound : Integer.MAX_VALUE);
    target.setDecompressorRegistry(settings.decompressorRegistry());
    if (compressor != null) {
      target.setCompressor(compressor);
    }
    events.streamStarting(target.handOff());
    target.start(events);
  }

  /** Arms the deadline timer for {@code effective} (once, from start). */
  private synchronized void scheduleDeadline(Deadline effective) {
    try {
      ScheduledFuture<?> future =
          effective.runOnExpiration(
              new DeadlineTimer(effective, effective.timeRemaining(TimeUnit.NANOSECONDS)),
              settings.scheduler());
      deadlineFuture = future;
      if (closeReceived) {
        future.cancel(false); // closed meanwhile: do not leak the timer
      }
    } catch (RejectedExecutionException e) {
      cancelStream(
          Status.UNAVAILABLE
              .withDescription("the channel's timer is shut down; cannot enforce the deadline")
              .withCause(e));
    }
  }

  @Override
  public void request(int numMessages) {
    if (numMessages < 0) {
      throw new IllegalArgumentException("numMessages must be >= 0, was " + numMessages);
    }
    checkStarted();
    if (numMessages == 0) {
      return;
    }
    if (readAhead != null) {
      readAhead.request(numMessages);
    } else {
      requestFromStream(numMessages);
    }
  }

  /** Asks the stream (the current one, remembered for a transparent retry) for more messages. */
  private void requestFromStream(int numMessages) {
    ClientStream target;
    if (retryable) {
      synchronized (events) {
        if (retryable) {
          requested = (int) Math.min(Integer.MAX_VALUE, (long) requested + numMessages);
        }
        target = stream;
      }
    } else {
      target = stream;
    }
    if (target != null) {
      target.request(numMessages);
    }
  }

  @Override
  public void cancel(String message, Throwable cause) {
    Status status = Status.CANCELLED;
    if (message != null) {
      status = status.withDescription(message);
    } else if (cause == null) {
      status = status.withDescription("Call cancelled without message or cause");
    }
    if (cause != null) {
      status = status.withCause(cause);
    }
    if (!started) {
      if (cancelStatus == null) {
        cancelStatus = status; // start() will close the call with it
      }
      return;
    }
    cancelStream(status);
  }

  @Override
  public void halfClose() {
    checkStarted();
    if (halfClosed) {
      throw new IllegalStateException("halfClose already called");
    }
    halfClosed = true;
    ClientStream target;
    if (retryable) {
      synchronized (events) {
        if (retryable) {
          replayHalfClose = true;
        }
        target = stream;
      }
    } else {
      target = stream;
    }
    if (target != null) {
      target.halfClose();
    }
  }

  @Override
  public void sendMessage(ReqT message) {
    checkStarted();
    if (halfClosed) {
      throw new IllegalStateException("sendMessage after halfClose");
    }
    if (cancelStatus != null || stream == null) {
      return; // the call is ending (or never got a stream): the message would go nowhere
    }
    InputStream serialized;
    try {
      serialized = method.streamRequest(message);
    } catch (RuntimeException | Error e) {
      cancelStream(
          Status.CANCELLED.withDescription("Failed to serialize the request message").withCause(e));
      return;
    }
    ClientStream target;
    if (retryable) {
      synchronized (events) {
        if (retryable && method.getType().clientSendsOneMessage() && replayMessage == null) {
          replayMessage = message; // a retry can send it again
        } else {
          retryable = false; // a message is on its way: no transparent retry from now on
          replayMessage = null;
        }
        target = stream;
      }
    } else {
      target = stream;
    }
    target.writeMessage(serialized);
    if (!method.getType().clientSendsOneMessage()) {
      target.flush();
    }
  }

  /**
   * Whether the application has half-closed the call: it can send nothing more, so readiness means
   * nothing to it ({@link ClientCallEvents} then drops {@code onReady}).
   */
  boolean isHalfClosed() {
    return halfClosed;
  }

  @Override
  public boolean isReady() {
    if (!started || halfClosed) {
      return false;
    }
    ClientStream target = stream;
    return target != null && target.isReady();
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    checkStarted();
    ClientStream target;
    if (retryable) {
      synchronized (events) {
        if (retryable) {
          replayCompression = enabled ? 1 : -1;
        }
        target = stream;
      }
    } else {
      target = stream;
    }
    if (target != null) {
      target.setMessageCompression(enabled);
    }
  }

  @Override
  public Attributes getAttributes() {
    ClientStream target = stream;
    return target != null ? target.getAttributes() : Attributes.EMPTY;
  }

  private void checkStarted() {
    if (!started) {
      throw new IllegalStateException("call not started");
    }
  }

  /**
   * How the call ends when its stream closed with {@code status}. A CANCELLED close is the peer's
   * RST_STREAM(CANCEL) or this side's own cancel; which one reached the transport first is a race:
   *
   * <ul>
   *   <li>if this side had already asked to cancel (the application, the context or the deadline
   *       timer), the call ends with that reason, even when the peer's reset won the race;
   *   <li>otherwise, once the deadline has passed, the reset is the server enforcing the {@code
   *       grpc-timeout} it received, and the call ends DEADLINE_EXCEEDED.
   * </ul>
   */
  Status closeStatus(Status status) {
    if (droppedTooOften) {
      return TransparentRetry.droppedTooOften(status);
    }
    if (status.getCode() != Status.Code.CANCELLED) {
      return status;
    }
    Status requested = cancelStatus;
    if (requested != null) {
      return requested;
    }
    if (deadline == null || !deadline.isExpired()) {
      return status;
    }
    return Status.DEADLINE_EXCEEDED
        .withDescription(
            "deadline exceeded: the server cancelled the call as the deadline passed ("
                + status.getDescription()
                + ")")
        .withCause(status.getCause());
  }

  /** Cancels the stream with {@code status}; safe from any thread, idempotent. */
  void cancelStream(Status status) {
    if (readAhead != null) {
      readAhead.discard(); // the application wants no more messages, only the close
    }
    if (cancelStatus == null) {
      cancelStatus = status;
    }
    ClientStream target = stream;
    if (target != null) {
      target.cancel(status);
    }
  }

  /** The application is told the call ended with {@code status} (once per started call). */
  void callEnded(Status status) {
    if (channelCalls != null) {
      channelCalls.callEnded(status.isOk());
    }
  }

  private void closeWithoutStream(Status status) {
    closeReceived = true;
    events.closeWithoutStream(status);
  }

  /** A response (headers or message) arrived: from now on a retry could lose it. */
  void responseArrived() {
    if (retryable) {
      synchronized (events) {
        retryable = false;
        replayMessage = null;
      }
    }
  }

  /**
   * The stream closed with {@code progress}: retries transparently if allowed and returns true;
   * otherwise stops the deadline timer and the context listener and returns false (the close is
   * then delivered).
   */
  boolean retryOrFinish(RpcProgress progress) {
    if ((progress == RpcProgress.REFUSED || progress == RpcProgress.DROPPED)
        && retryable
        && transparentRetry(progress)) {
      return true;
    }
    closeReceived = true;
    cancelDeadlineTimer();
    Context ctx = context;
    if (ctx != null) {
      ctx.removeListener(events);
    }
    return false;
  }

  /**
   * Retries on a fresh stream if still allowed (see the class comment). The replacement buffers the
   * replayed operations until the channel provides the new stream. The request to replay is
   * serialized again here, under the lock, so that it keeps its place before a half-close that the
   * application may be making meanwhile; if that fails, there is no retry.
   */
  private boolean transparentRetry(RpcProgress progress) {
    DelayedClientStream replacement;
    synchronized (events) {
      if (!retryable || cancelStatus != null) {
        return false;
      }
      int next = TransparentRetry.next(transparentRetries, progress);
      if (next == TransparentRetry.NO) {
        droppedTooOften = progress == RpcProgress.DROPPED;
        return false;
      }
      InputStream replayed = null;
      if (replayMessage != null) {
        try {
          replayed = method.streamRequest(replayMessage);
        } catch (RuntimeException | Error e) {
          retryable = false;
          replayMessage = null;
          return false;
        }
      }
      transparentRetries = next;
      replacement = new DelayedClientStream();
      stream = replacement; // retryable stays set: this stream may be refused too
      // Only buffers: the replacement calls out to nothing until it gets its real stream.
      startStream(replacement);
      if (requested > 0) {
        replacement.request(requested);
      }
      if (replayCompression != 0) {
        replacement.setMessageCompression(replayCompression > 0);
      }
      if (replayed != null) {
        replacement.writeMessage(replayed);
      }
      if (replayHalfClose) {
        replacement.halfClose();
      }
    }
    if (deadline != null) {
      headers.discardAll(GrpcHeaders.TIMEOUT);
      headers.put(
          GrpcHeaders.TIMEOUT,
          GrpcTimeoutCodec.encode(deadline.timeRemaining(TimeUnit.NANOSECONDS)));
    }
    replacement.setStream(streamProvider.newStream(this, methodConfig, deadline, appExecutor));
    Status cancelled = cancelStatus;
    if (cancelled != null) {
      replacement.cancel(cancelled); // cancel() raced with the swap
    }
    return true;
  }

  /**
   * Stops the deadline timer. A call without a deadline never armed one, so it skips the lock (a
   * timer armed after this, as the stream closed during start, sees {@code closeReceived} and stops
   * itself).
   */
  private void cancelDeadlineTimer() {
    if (deadline == null) {
      return;
    }
    synchronized (this) {
      if (deadlineFuture != null) {
        deadlineFuture.cancel(false);
        deadlineFuture = null;
      }
    }
  }

  /** The earlier of two deadlines (either may be null); works across tickers. */
  private static Deadline earlier(Deadline a, Deadline b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a.timeRemaining(TimeUnit.NANOSECONDS) <= b.timeRemaining(TimeUnit.NANOSECONDS) ? a : b;
  }

  /** Formats {@code nanos} as seconds with nine decimals, e.g. {@code 1.500000000s}. */
  static String formatSeconds(long nanos) {
    StringBuilder sb = new StringBuilder(24);
    if (nanos < 0) {
      sb.append('-');
      nanos = -nanos;
    }
    sb.append(nanos / 1_000_000_000L).append('.');
    String fraction = Long.toString(nanos % 1_000_000_000L);
    for (int i = fraction.length(); i < 9; i++) {
      sb.append('0');
    }
    return sb.append(fraction).append('s').toString();
  }

  @Override
  public String toString() {
    return "ClientCallImpl{method=" + method.getFullMethodName() + ", stream=" + stream + "}";
  }

  /** Cancels the call when its deadline passes, saying how long it ran. */
  private final class DeadlineTimer implements Runnable {
    private final Deadline timed;
    private final long remainingAtStartNanos;

    DeadlineTimer(Deadline timed, long remainingAtStartNanos) {
      this.timed = timed;
      this.remainingAtStartNanos = remainingAtStartNanos;
    }

    @Override
    public void run() {
      long overdue = Math.max(0, -timed.timeRemaining(TimeUnit.NANOSECONDS));
      cancelStream(
          Status.DEADLINE_EXCEEDED.withDescription(
              "deadline exceeded after " + formatSeconds(remainingAtStartNanos + overdue)));
    }
  }
}
