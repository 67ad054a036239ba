package dev.tern.internal.channel;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

/**
 * A call whose configuration is chosen as it starts, by the {@link ConfiguringChannel} that made
 * it: because the resolver's config selector needs its headers, or because no configuration is
 * known yet. It records what the application does (start, requests, messages, half-close,
 * compression, cancel) and replays it, in order, on the real call once the channel has made it
 * (born configured); from then on it passes every call straight through.
 *
 * <p>While it waits for the channel's first configuration it enforces what a started call would:
 * its deadline (a timer), its context's cancellation (a listener) and the application's {@code
 * cancel}; each ends the wait with a call that never gets a stream, on which the start and cancel
 * are replayed, so the application hears the same status as from any call. The channel's shutdown
 * ends it, whether it comes while the call waits or before the call starts, with a call whose
 * stream fails with the shutdown status.
 *
 * <p>Thread-safety: the {@code ClientCall} methods come from one application thread at a time
 * ({@code cancel} from any); the channel hands over the real call from its synchronization context,
 * the timer and the context listener from theirs. A private lock guards the recorded operations; a
 * single thread at a time (the one that set the real call, until it has caught up) replays them, so
 * the real call sees them in order. No lock is held while calling the real call or the channel.
 */
final class DelayedCall<ReqT, RespT> extends ClientCall<ReqT, RespT>
    implements PickSubchannelArgs, Context.CancellationListener {
  private static final Executor DIRECT = Runnable::run;

  private final ConfiguringChannel channel;
  private final MethodDescriptor<ReqT, RespT> method;
  private final CallOptions callOptions;
  private final ScheduledExecutorService scheduler;
  private final Object lock = new Object();

  // The application thread's own checks.
  private boolean started;
  private boolean halfClosed;

  // Written by start() before the call is handed to the channel or a timer; read after that.
  private Metadata headers;
  private Context context;

  /** Once true, the real call has caught up and every operation goes straight to it. */
  private volatile boolean passThrough;

  private volatile ClientCall<ReqT, RespT> real;

  /** Set as the recorded start is replayed, just before the real call starts; see isReady(). */
  private volatile boolean realStarted;

  @GuardedBy("lock")
  private List<Consumer<ClientCall<ReqT, RespT>>> pending = new ArrayList<>();

  @GuardedBy("lock")
  private boolean startRecorded;

  @GuardedBy("lock")
  private boolean cancelRecorded;

  @GuardedBy("lock")
  private ScheduledFuture<?> deadlineTimer;

  DelayedCall(
      ConfiguringChannel channel,
      MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions,
      ScheduledExecutorService scheduler) {
    this.channel = channel;
    this.method = method;
    this.callOptions = callOptions;
    this.scheduler = scheduler;
  }

  MethodDescriptor<ReqT, RespT> method() {
    return method;
  }

  // The call as a config selector sees it: valid once start() has recorded the headers.

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

  @Override
  public void start(Listener<RespT> responseListener, Metadata headers) {
    Objects.requireNonNull(responseListener, "responseListener");
    Objects.requireNonNull(headers, "headers");
    if (started) {
      throw new IllegalStateException("call already started");
    }
    started = true;
    Context ctx = Context.current();
    this.headers = headers;
    this.context = ctx;
    boolean cancelled;
    synchronized (lock) {
      pending.add(
          call -> {
            realStarted = true;
            ctx.run(() -> call.start(responseListener, headers));
          });
      startRecorded = true;
      cancelled = cancelRecorded;
    }
    // Checked here, not only when the call waits: shutdown() closes the transports through the
    // channel's context, which may be busy on another thread, so the picker may still pick.
    Status refused = channel.refusal();
    if (refused != null) {
      setReal(channel.failedCall(method, callOptions, refused));
      return;
    }
    ConfiguringChannel.Selection known = channel.current();
    if (known != null) {
      setReal(channel.callFor(this, known));
      return;
    }
    if (cancelled) {
      setReal(channel.parkedCall(method, callOptions)); // replays the cancel, then the start
      return;
    }
    armDeadline();
    ctx.addListener(this, DIRECT);
    if (real == null) {
      channel.await(this);
    }
  }

  /** Ends the wait as the call's deadline (from its options) passes. */
  private void armDeadline() {
    Deadline deadline = callOptions.getDeadline();
    if (deadline == null) {
      return;
    }
    ScheduledFuture<?> timer;
    try {
      timer = deadline.runOnExpiration(this::endWaiting, scheduler);
    } catch (RejectedExecutionException e) {
      endWaiting(); // the call, once started, says its deadline cannot be enforced
      return;
    }
    boolean stop;
    synchronized (lock) {
      stop = real != null;
      if (!stop) {
        deadlineTimer = timer;
      }
    }
    if (stop) {
      timer.cancel(false);
    }
  }

  /** The context was cancelled while the call waits. */
  @Override
  public void cancelled(Context context) {
    endWaiting();
  }

  /**
   * The wait ends by the call's own doing (deadline, context): the call becomes one that never gets
   * a stream; its replayed start then closes it with the reason.
   */
  private void endWaiting() {
    if (real == null) {
      channel.stopWaiting(this);
      setReal(channel.parkedCall(method, callOptions));
    }
  }

  /** The channel's configuration arrived: the call becomes the one it chooses. */
  void proceed(ConfiguringChannel.Selection selection) {
    if (real == null) {
      setReal(channel.callFor(this, selection));
    }
  }

  /** The channel failed the call (shut down while it waited). */
  void fail(Status status) {
    if (real == null) {
      setReal(channel.failedCall(method, callOptions, status));
    }
  }

  /**
   * Hands over the real call (not started) and replays what was recorded; does nothing if another
   * one was set first (that one is left unstarted, so it holds nothing).
   */
  private void setReal(ClientCall<ReqT, RespT> call) {
    ScheduledFuture<?> timer;
    List<Consumer<ClientCall<ReqT, RespT>>> ops;
    synchronized (lock) {
      if (real != null) {
        return;
      }
      real = call;
      timer = deadlineTimer;
      deadlineTimer = null;
      ops = pending;
      pending = new ArrayList<>(0);
    }
    if (timer != null) {
      timer.cancel(false);
    }
    Context ctx = context;
    if (ctx != null) {
      ctx.removeListener(this);
    }
    boolean caughtUp = false;
    try {
      while (true) {
        for (Consumer<ClientCall<ReqT, RespT>> op : ops) {
          op.accept(call);
        }
        synchronized (lock) {
          if (pending.isEmpty()) {
            passThrough = true;
            pending = null;
            caughtUp = true;
            return;
          }
          ops = pending;
          pending = new ArrayList<>(0);
        }
      }
    } finally {
      if (!caughtUp) {
        // The real call threw: stop recording so later operations reach it (and fail there).
        synchronized (lock) {
          passThrough = true;
          pending = null;
        }
      }
    }
  }

  /**
   * Records {@code op} for the real call, or returns false if the real call has caught up (the
   * caller then calls it directly).
   */
  private boolean record(Consumer<ClientCall<ReqT, RespT>> op) {
    if (passThrough) {
      return false;
    }
    synchronized (lock) {
      if (passThrough) {
        return false;
      }
      pending.add(op);
      return true;
    }
  }

  @Override
  public void request(int numMessages) {
    if (numMessages < 0) {
      throw new IllegalArgumentException("numMessages must be >= 0, was " + numMessages);
    }
    checkStarted();
    if (!record(call -> call.request(numMessages))) {
      real.request(numMessages);
    }
  }

  @Override
  public void cancel(String message, Throwable cause) {
    if (!passThrough) {
      boolean recorded = false;
      boolean endWait = false;
      synchronized (lock) {
        if (!passThrough) {
          pending.add(call -> call.cancel(message, cause));
          cancelRecorded = true;
          recorded = true;
          endWait = real == null && startRecorded;
        }
      }
      if (endWait) {
        endWaiting(); // the replay applies the start, then the cancel
      }
      if (recorded) {
        return;
      }
    }
    real.cancel(message, cause);
  }

  @Override
  public void halfClose() {
    checkStarted();
    if (halfClosed) {
      throw new IllegalStateException("halfClose already called");
    }
    halfClosed = true;
    if (!record(ClientCall::halfClose)) {
      real.halfClose();
    }
  }

  @Override
  public void sendMessage(ReqT message) {
    checkStarted();
    if (halfClosed) {
      throw new IllegalStateException("sendMessage after halfClose");
    }
    if (!record(call -> call.sendMessage(message))) {
      real.sendMessage(message);
    }
  }

  /**
   * False until the real call has started; then the real call's answer. The real call may tell the
   * listener {@code onReady} while the replay is still under way (from its start on, from another
   * thread), and it says so only once: answering false until the replay caught up would lose that
   * signal, and a caller waiting for readiness would wait forever. A message sent meanwhile is
   * recorded behind the replay, in order.
   */
  @Override
  public boolean isReady() {
    return realStarted && real.isReady();
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    checkStarted();
    if (!record(call -> call.setMessageCompression(enabled))) {
      real.setMessageCompression(enabled);
    }
  }

  @Override
  public Attributes getAttributes() {
    return passThrough ? real.getAttributes() : Attributes.EMPTY;
  }

  private void checkStarted() {
    if (!started) {
      throw new IllegalStateException("call not started");
    }
  }

  @Override
  public String toString() {
    return "DelayedCall{method=" + method.getFullMethodName() + ", real=" + real + "}";
  }
}
