package dev.tern.internal.retry;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Compressor;
import dev.tern.Deadline;
import dev.tern.DecompressorRegistry;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.SerializingExecutor;
import dev.tern.internal.client.DelayedClientStream;
import dev.tern.internal.client.SelfRetryingStream;
import dev.tern.internal.client.TransparentRetry;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.GrpcTimeoutCodec;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A call's stream under a retry or hedging policy (gRFC A6). It sends the call as one or more
 * attempts, each a stream of its own picked by the balancer, and keeps what the call sends (request
 * counts, messages as bytes, flushes, the half-close) in a buffer of {@link BufferedOp}s so that a
 * new attempt can replay it. The call <em>commits</em> to one attempt when that attempt's response
 * headers arrive, when it ends in a way the policy does not retry, when the buffer would pass its
 * limits, or when the call is cancelled; the other attempts are then cancelled, the buffer is
 * freed, and from then on the stream passes everything straight to the committed attempt. Only the
 * committed attempt's events reach the call, so the call (and its interceptors) see one stream.
 *
 * <p>When to send the next attempt, and whether to, is the {@link AttemptPlan}'s business. An
 * attempt refused by the server, or one that never left the client, is sent again without counting
 * as an attempt (a transparent retry), as often as {@link TransparentRetry} allows each attempt.
 * The committed attempt's end is reported as it came, REFUSED or DROPPED included: the call, which
 * keeps a unary request, then sends it again, as this stream may no longer hold it.
 *
 * <p>Every attempt carries the call's headers, its remaining {@code grpc-timeout}, and from the
 * second on {@code grpc-previous-rpc-attempts}.
 *
 * <p>Thread-safety: the {@code ClientStream} methods come from the call (the application thread,
 * and {@link #cancel} from any thread); attempts report on their transports' threads and timers
 * fire on the scheduler. One private lock guards the shared state; no stream, listener or timer is
 * called with it held. An attempt's replay is done by one thread at a time (the one that made the
 * attempt, until it has caught up; then the call's thread), so each attempt sees its operations in
 * order. Events to the call's listener go through a {@link SerializingExecutor}, one at a time.
 */
public final class RetryingClientStream implements SelfRetryingStream {
  /** What makes the streams of attempts: the channel's balancer. */
  public interface AttemptSource {
    /** A stream for one attempt; never null, not started. */
    ClientStream newAttemptStream(PickSubchannelArgs args);
  }

  private static final Executor DIRECT = Runnable::run;

  static final Status LOST_HEDGE =
      Status.CANCELLED.withDescription("another attempt of this call won (hedging or retry)");

  private final MethodDescriptor<?, ?> method;
  private final CallOptions callOptions;
  private final Metadata callHeaders;
  private final Deadline deadline;
  private final AttemptSource source;
  private final AttemptPlan plan;
  private final RetryBuffer retryBuffer;
  private final SerializingExecutor events = new SerializingExecutor(DIRECT);
  private final Runnable deliverOnReady = this::deliverOnReady;

  // Set by the call before start, then only read.
  private int maxInboundMessageSize = -1;
  private int maxOutboundMessageSize = -1;
  private DecompressorRegistry decompressorRegistry;
  private Compressor compressor;
  private ClientStreamListener listener;

  private final Object lock = new Object();

  /** Once true, operations go straight to the committed attempt, which has caught up. */
  private volatile boolean passThrough;

  private volatile Attempt committed;

  @GuardedBy("lock")
  private final List<BufferedOp> buffer = new ArrayList<>();

  @GuardedBy("lock")
  private long bufferedBytes;

  @GuardedBy("lock")
  private boolean bufferFull;

  @GuardedBy("lock")
  private final List<Attempt> live = new ArrayList<>(2);

  @GuardedBy("lock")
  private Future<?> timer;

  @GuardedBy("lock")
  private boolean started;

  @GuardedBy("lock")
  private Status cancelStatus;

  @GuardedBy("lock")
  private boolean closed;

  /** The last failure, delivered if no attempt is left to wait for. */
  @GuardedBy("lock")
  private Attempt lastFailed;

  public RetryingClientStream(
      PickSubchannelArgs call,
      Deadline deadline,
      AttemptSource source,
      AttemptPlan plan,
      RetryBuffer retryBuffer) {
    this.method = call.getMethodDescriptor();
    this.callOptions = call.getCallOptions();
    this.callHeaders = call.getHeaders();
    this.deadline = deadline;
    this.source = source;
    this.plan = plan;
    this.retryBuffer = retryBuffer;
  }

  @Override
  public void setMaxInboundMessageSize(int bytes) {
    maxInboundMessageSize = bytes;
  }

  @Override
  public void setMaxOutboundMessageSize(int bytes) {
    maxOutboundMessageSize = bytes;
  }

  @Override
  public void setDecompressorRegistry(DecompressorRegistry registry) {
    decompressorRegistry = registry;
  }

  @Override
  public void setCompressor(Compressor compressor) {
    this.compressor = compressor;
  }

  @Override
  public void start(ClientStreamListener listener) {
    this.listener = listener;
    Status early;
    synchronized (lock) {
      started = true;
      early = cancelStatus;
      if (early != null) {
        closed = true;
      }
    }
    if (early != null) {
      Status status = early;
      events.execute(() -> listener.closed(status, RpcProgress.PROCESSED, new Metadata()));
      return;
    }
    newAttempt(0, false, TransparentRetry.NONE);
    if (plan.isHedging()) {
      scheduleNextHedge(plan.hedgingDelayNanos());
    }
  }

  // --- what the call sends: buffered for replay until the call commits ---

  @Override
  public void request(int numMessages) {
    send(new BufferedOp.Request(numMessages));
  }

  @Override
  public void writeMessage(InputStream message) {
    if (passThrough) {
      committed.stream.writeMessage(message);
      return;
    }
    byte[] bytes;
    try (InputStream in = message) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("reading the request message to buffer it for retries", e);
    }
    send(new BufferedOp.Message(bytes));
  }

  @Override
  public void flush() {
    send(BufferedOp.Signal.FLUSH);
  }

  @Override
  public void halfClose() {
    send(BufferedOp.Signal.HALF_CLOSE);
  }

  @Override
  public void setMessageCompression(boolean enable) {
    send(enable ? BufferedOp.Signal.COMPRESSION_ON : BufferedOp.Signal.COMPRESSION_OFF);
  }

  /** Buffers {@code op} and applies it to the attempts that have caught up. */
  private void send(BufferedOp op) {
    int size = op.size();
    List<Attempt> targets;
    boolean overflow = false;
    synchronized (lock) {
      if (!passThrough) {
        if (closed || cancelStatus != null) {
          return;
        }
        buffer.add(op);
        if (size > 0 && !bufferFull) {
          if (retryBuffer.tryReserve(bufferedBytes, size)) {
            bufferedBytes += size;
          } else {
            bufferFull = true;
            overflow = true;
          }
        }
        targets = caughtUpLocked();
      } else {
        targets = null;
      }
    }
    if (targets == null) {
      op.applyTo(committed.stream); // became pass-through meanwhile: the op was not buffered
      return;
    }
    for (Attempt attempt : targets) {
      op.applyTo(attempt.stream);
    }
    if (overflow) {
      commitForFullBuffer();
    }
  }

  @GuardedBy("lock")
  private List<Attempt> caughtUpLocked() {
    List<Attempt> targets = new ArrayList<>(live.size());
    Attempt winner = committed;
    for (Attempt attempt : live) {
      if (attempt.caughtUp && (winner == null || winner == attempt)) {
        targets.add(attempt);
      }
    }
    return targets;
  }

  /** The buffer is full: the call commits to the attempt that has sent the most, or the next. */
  private void commitForFullBuffer() {
    List<Attempt> losers;
    synchronized (lock) {
      if (committed != null || closed) {
        return;
      }
      plan.stop(); // no attempt may start without the whole request
      Attempt best = null;
      for (Attempt attempt : live) {
        if (best == null || attempt.replayed > best.replayed) {
          best = attempt;
        }
      }
      if (best == null) {
        return; // between attempts: the next one (if any) commits at once
      }
      losers = commitLocked(best);
    }
    cancelAll(losers, LOST_HEDGE);
  }

  // --- attempts ---

  /**
   * Starts an attempt, unless the call has committed or closed meanwhile.
   *
   * @param previous how many attempts preceded it (its {@code grpc-previous-rpc-attempts})
   * @param transparent whether it is a transparent retry (does not count as an attempt)
   * @param transparentRetries the {@link TransparentRetry} state of the attempt
   */
  private void newAttempt(int previous, boolean transparent, int transparentRetries) {
    Attempt attempt = new Attempt(previous, transparent, transparentRetries);
    synchronized (lock) {
      if (closed || committed != null || cancelStatus != null) {
        return;
      }
      live.add(attempt);
      if (!transparent) {
        plan.attemptStarted();
      }
      if (bufferFull) {
        commitLocked(attempt); // nothing else is live: the buffer overflowed between attempts
      }
    }
    ClientStream stream = source.newAttemptStream(attemptArgs(previous, transparent));
    attempt.stream = stream;
    new DelayedClientStream.StartSettings(
            attempt,
            maxInboundMessageSize,
            maxOutboundMessageSize,
            decompressorRegistry,
            compressor,
            null) // each attempt's own tracers listen to its wire sizes
        .applyAndStart(stream);
    catchUp(attempt);
  }

  private PickSubchannelArgs attemptArgs(int previous, boolean transparent) {
    Metadata headers = new Metadata();
    headers.merge(callHeaders);
    if (deadline != null) {
      headers.discardAll(GrpcHeaders.TIMEOUT);
      headers.put(
          GrpcHeaders.TIMEOUT,
          GrpcTimeoutCodec.encode(deadline.timeRemaining(TimeUnit.NANOSECONDS)));
    }
    if (previous > 0) {
      headers.put(GrpcHeaders.PREVIOUS_RPC_ATTEMPTS, Integer.toString(previous));
    }
    return new AttemptArgs(callOptions, headers, method, previous, transparent, plan.isHedging());
  }

  /** Replays the buffer onto {@code attempt} until it has caught up with the call. */
  private void catchUp(Attempt attempt) {
    boolean readyMissed;
    while (true) {
      List<BufferedOp> batch;
      Status stop;
      synchronized (lock) {
        if (attempt.done) {
          return;
        }
        Attempt winner = committed;
        if (winner != null && winner != attempt) {
          stop = LOST_HEDGE;
          batch = null;
        } else if (cancelStatus != null) {
          stop = cancelStatus;
          batch = null;
        } else if (attempt.replayed == buffer.size()) {
          attempt.caughtUp = true;
          if (winner == attempt) {
            releaseBufferLocked();
            passThrough = true;
          }
          readyMissed = attempt.readyWhileCatchingUp;
          attempt.readyWhileCatchingUp = false;
          break;
        } else {
          stop = null;
          batch = new ArrayList<>(buffer.subList(attempt.replayed, buffer.size()));
          attempt.replayed = buffer.size();
        }
      }
      if (stop != null) {
        attempt.stream.cancel(stop);
        return;
      }
      for (BufferedOp op : batch) {
        op.applyTo(attempt.stream);
      }
    }
    if (readyMissed) {
      attempt.onReady(); // the stream said it was ready while isReady() still answered false
    }
  }

  /**
   * Commits to {@code winner}: stops the timer, frees the buffer if the winner has caught up, and
   * returns the other live attempts, which the caller cancels outside the lock.
   */
  @GuardedBy("lock")
  private List<Attempt> commitLocked(Attempt winner) {
    committed = winner;
    plan.stop();
    cancelTimerLocked();
    List<Attempt> losers = new ArrayList<>(live.size());
    for (Attempt attempt : live) {
      if (attempt != winner) {
        losers.add(attempt);
      }
    }
    if (winner.caughtUp) {
      releaseBufferLocked();
      passThrough = true;
    }
    return losers;
  }

  @GuardedBy("lock")
  private void releaseBufferLocked() {
    buffer.clear();
    retryBuffer.release(bufferedBytes);
    bufferedBytes = 0;
  }

  @GuardedBy("lock")
  private void cancelTimerLocked() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private static void cancelAll(List<Attempt> attempts, Status status) {
    for (Attempt attempt : attempts) {
      ClientStream stream = attempt.stream;
      if (stream != null) {
        stream.cancel(status); // one not made yet cancels itself when it catches up
      }
    }
  }

  private void scheduleNextHedge(long delayNanos) {
    Attempt toDeliver;
    synchronized (lock) {
      cancelTimerLocked();
      if (closed || committed != null) {
        return;
      }
      if (!plan.mayStartAnother()) {
        // The timer this replaced may have been what a failed attempt waited for (it failed
        // while this hedge started): with nothing left in flight, the call ends now.
        toDeliver = giveUpIfIdleLocked();
      } else if (delayNanos > 0) {
        timer = plan.scheduler().schedule(this::hedgeTimerFired, delayNanos, TimeUnit.NANOSECONDS);
        return;
      } else {
        toDeliver = null;
      }
    }
    if (toDeliver != null) {
      deliverClose(toDeliver.failure, toDeliver.failureTrailers);
    } else if (delayNanos <= 0) {
      hedgeTimerFired(); // a zero delay: send the next hedge now
    }
  }

  /**
   * Commits the last failed attempt and closes the call if no attempt is in flight and none may
   * start; returns that attempt (its failure to deliver), or null if the call goes on.
   */
  @GuardedBy("lock")
  private Attempt giveUpIfIdleLocked() {
    if (!live.isEmpty() || lastFailed == null || plan.mayStartAnother()) {
      return null;
    }
    commitLocked(lastFailed);
    closed = true;
    return lastFailed;
  }

  private void hedgeTimerFired() {
    int previous;
    Attempt toDeliver = null;
    synchronized (lock) {
      timer = null;
      if (closed || committed != null) {
        return;
      }
      if (!plan.mayStartAnother()) {
        toDeliver = giveUpIfIdleLocked();
        if (toDeliver == null) {
          return;
        }
      }
      previous = plan.attemptsStarted();
    }
    if (toDeliver != null) {
      deliverClose(toDeliver.failure, toDeliver.failureTrailers);
      return;
    }
    newAttempt(previous, false, TransparentRetry.NONE);
    scheduleNextHedge(plan.hedgingDelayNanos());
  }

  private void retryTimerFired() {
    int previous;
    synchronized (lock) {
      timer = null;
      if (closed || committed != null) {
        return;
      }
      previous = plan.attemptsStarted();
    }
    newAttempt(previous, false, TransparentRetry.NONE);
  }

  // --- what the call sees ---

  @Override
  public void cancel(Status reason) {
    List<Attempt> losers = List.of();
    Attempt target = null;
    boolean deliverNow = false;
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (cancelStatus == null) {
        cancelStatus = reason;
      }
      if (!started) {
        return; // start() reports it
      }
      if (committed != null) {
        target = committed;
      } else if (!live.isEmpty()) {
        target = live.get(0);
        losers = commitLocked(target);
      } else {
        closed = true; // waiting for a retry: nothing to cancel but the timer
        cancelTimerLocked();
        plan.stop();
        releaseBufferLocked();
        deliverNow = true;
      }
    }
    cancelAll(losers, LOST_HEDGE);
    if (deliverNow) {
      deliverClose(reason, new Metadata());
    } else if (target.stream != null) {
      target.stream.cancel(reason);
    }
  }

  @Override
  public boolean isReady() {
    Attempt winner = committed;
    if (winner != null) {
      ClientStream stream = winner.stream;
      return stream != null && stream.isReady();
    }
    List<Attempt> current;
    synchronized (lock) {
      current = caughtUpLocked();
    }
    for (Attempt attempt : current) {
      if (attempt.stream.isReady()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Attributes getAttributes() {
    Attempt winner = committed;
    ClientStream stream = winner != null ? winner.stream : null;
    return stream != null ? stream.getAttributes() : Attributes.EMPTY;
  }

  private void deliverOnReady() {
    listener.onReady();
  }

  private void deliverClose(Status status, Metadata trailers) {
    deliverClose(status, trailers, RpcProgress.PROCESSED);
  }

  private void deliverClose(Status status, Metadata trailers, RpcProgress progress) {
    synchronized (lock) {
      releaseBufferLocked();
    }
    if (status.isOk()) {
      plan.callSucceeded();
    }
    events.execute(() -> listener.closed(status, progress, trailers));
  }

  /** What to do once {@code attempt} closed without being committed. */
  private void attemptFailed(
      Attempt attempt, Status status, RpcProgress progress, Metadata trailers) {
    AttemptPlan.Next next;
    int transparentState;
    List<Attempt> losers = List.of();
    synchronized (lock) {
      if (closed || committed != null) {
        return; // a loser's close, or the call ended meanwhile
      }
      transparentState = TransparentRetry.next(attempt.transparentRetries, progress);
      if (transparentState != TransparentRetry.NO && cancelStatus == null && !bufferFull) {
        next = AttemptPlan.Next.TRANSPARENT;
      } else if (cancelStatus != null || bufferFull) {
        next = AttemptPlan.Next.GIVE_UP;
      } else {
        status = TransparentRetry.reported(status, attempt.transparentRetries, progress);
        next = plan.afterFailure(status, trailers, !live.isEmpty() || timer != null);
      }
      switch (next) {
        case TRANSPARENT, RETRY_NOW, WAIT -> {}
        case RETRY_LATER -> {
          long delay = plan.delayNanos();
          cancelTimerLocked();
          timer = plan.scheduler().schedule(this::retryTimerFired, delay, TimeUnit.NANOSECONDS);
        }
        case HEDGE_LATER -> {
          cancelTimerLocked();
          timer =
              plan.scheduler()
                  .schedule(this::hedgeTimerFired, plan.delayNanos(), TimeUnit.NANOSECONDS);
        }
        case GIVE_UP -> {
          losers = commitLocked(attempt);
          closed = true;
        }
      }
      if (next != AttemptPlan.Next.GIVE_UP) {
        attempt.failure = status;
        attempt.failureTrailers = trailers;
        lastFailed = attempt;
      }
    }
    switch (next) {
      case TRANSPARENT -> newAttempt(attempt.previous, true, transparentState);
      case RETRY_NOW -> {
        newAttempt(plan.attemptsStarted(), false, TransparentRetry.NONE);
        scheduleNextHedge(plan.hedgingDelayNanos());
      }
      case GIVE_UP -> {
        cancelAll(losers, LOST_HEDGE);
        deliverClose(status, trailers);
      }
      default -> {}
    }
  }

  /**
   * One attempt: the listener of its stream. Its mutable fields are guarded by the stream's lock.
   */
  private final class Attempt implements ClientStreamListener {
    final int previous;
    final boolean transparent;

    /** Its {@link TransparentRetry} state (carried over from the attempt it sends again). */
    final int transparentRetries;

    volatile ClientStream stream;

    /** How many buffered operations it has been given. */
    int replayed;

    /**
     * Whether it has been given every buffered operation (the call's thread feeds it since).
     * Written under the lock; read without it by {@link #onReady}.
     */
    volatile boolean caughtUp;

    /**
     * Whether its stream said it was ready before it caught up, when {@link #isReady} still
     * answered false for it: {@link #catchUp} passes that signal on once it has, or it would be
     * lost (a stream says it is ready once) and a caller waiting for readiness would wait forever.
     * Guarded by the call's lock.
     */
    boolean readyWhileCatchingUp;

    /** Whether its stream has closed. */
    boolean done;

    /** How it failed, kept in case it is the last attempt to report. */
    Status failure;

    Metadata failureTrailers;

    Attempt(int previous, boolean transparent, int transparentRetries) {
      this.previous = previous;
      this.transparent = transparent;
      this.transparentRetries = transparentRetries;
    }

    @Override
    public void headersRead(Metadata headers) {
      List<Attempt> losers = List.of();
      synchronized (lock) {
        if (committed == null && !closed) {
          losers = commitLocked(this);
        }
      }
      cancelAll(losers, LOST_HEDGE);
      if (committed == this) {
        events.execute(() -> listener.headersRead(headers));
      }
    }

    @Override
    public void messageRead(InputStream message) {
      if (committed == this) {
        events.execute(() -> listener.messageRead(message));
      } else {
        closeQuietly(message);
      }
    }

    @Override
    public void onReady() {
      if (!caughtUp) {
        synchronized (lock) {
          if (!caughtUp) {
            readyWhileCatchingUp = true;
            return;
          }
        }
      }
      Attempt winner = committed;
      if (winner == null || winner == this) {
        events.execute(deliverOnReady);
      }
    }

    @Override
    public void closed(Status status, RpcProgress progress, Metadata trailers) {
      boolean deliver;
      synchronized (lock) {
        done = true;
        live.remove(this);
        deliver = committed == this && !closed;
        if (deliver) {
          closed = true;
        }
      }
      if (deliver) {
        // Committed: a stream the server did not process says so, for the call to send again if
        // it can (this stream may no longer hold the request).
        deliverClose(status, trailers, progress);
      } else {
        attemptFailed(this, status, progress, trailers);
      }
    }
  }

  private static void closeQuietly(InputStream message) {
    try {
      message.close();
    } catch (IOException ignored) {
      // a message nobody reads: nothing to do
    }
  }

  /**
   * The arguments of one attempt's pick: the call's, with the attempt's own headers, and which
   * attempt it is (for its stream tracers).
   */
  public record AttemptArgs(
      CallOptions callOptions,
      Metadata headers,
      MethodDescriptor<?, ?> method,
      int previous,
      boolean transparent,
      boolean hedging)
      implements PickSubchannelArgs {
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
  }

  @Override
  public String toString() {
    return "RetryingClientStream{method=" + method.getFullMethodName() + ", plan=" + plan + "}";
  }
}
