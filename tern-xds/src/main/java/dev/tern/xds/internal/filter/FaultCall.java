package dev.tern.xds.internal.filter;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.ForwardingClientCallListener;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One call through the fault filter. On {@link #start} it asks its {@link FaultInterceptor} for the
 * call's faults. Without any, it makes the channel's call and forwards to it. With a delay, it
 * holds the call (and buffers requests, messages, half-close) on the channel's scheduler until the
 * delay ends, or until the call's deadline if that comes first, or until it or its context is
 * cancelled; only then is the channel's call made, so nothing is sent before. An abort (after the
 * delay, if any) is the channel's call cancelled before it starts, whose close the listener sees as
 * the injected status: so every ending, injected or not, reaches the application on the call's own
 * executor, through the channel, and the channel's call fails a passed deadline with
 * DEADLINE_EXCEEDED by itself.
 *
 * <p>Thread-safety: the application's threads and the scheduler's may call in concurrently; {@code
 * lock} guards the state below; nothing calls out while holding it.
 */
final class FaultCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
  private final FaultInterceptor faults;
  private final MethodDescriptor<ReqT, RespT> method;
  private final CallOptions options;
  private final Channel next;
  private final ScheduledExecutorService scheduler;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private List<Consumer<ClientCall<ReqT, RespT>>> pending = new ArrayList<>();

  /** Set once the channel's call exists and the buffered operations went to it. */
  private volatile ClientCall<ReqT, RespT> delegate;

  @GuardedBy("lock")
  private boolean proceeded;

  @GuardedBy("lock")
  private Status cancelled;

  @GuardedBy("lock")
  private ScheduledFuture<?> timer;

  private Listener<RespT> listener;
  private Metadata headers;

  /** While delayed: the call's context and the listener that ends the delay if it is cancelled. */
  private volatile Context delayContext;

  private volatile Context.CancellationListener contextListener;

  FaultCall(
      FaultInterceptor faults,
      MethodDescriptor<ReqT, RespT> method,
      CallOptions options,
      Channel next,
      ScheduledExecutorService scheduler) {
    this.faults = faults;
    this.method = method;
    this.options = options;
    this.next = next;
    this.scheduler = scheduler;
  }

  @Override
  public void start(Listener<RespT> responseListener, Metadata requestHeaders) {
    this.listener = responseListener;
    this.headers = requestHeaders;
    FaultInterceptor.Decision decision = faults.decide(requestHeaders);
    if (decision == null) {
      proceed(null, false);
      return;
    }
    if (decision.delayNanos() == 0) {
      proceed(decision.abort(), true);
      return;
    }
    long wait = decision.delayNanos();
    boolean deadlineFirst = false;
    Context context = Context.current();
    Deadline deadline = earlier(options.getDeadline(), context.getDeadline());
    if (deadline != null) {
      long remaining = deadline.timeRemaining(TimeUnit.NANOSECONDS);
      if (remaining < wait) {
        wait = Math.max(0, remaining);
        deadlineFirst = true;
      }
    }
    // When the deadline comes first, the channel's call fails it DEADLINE_EXCEEDED, sending
    // nothing.
    Status abort = deadlineFirst ? null : decision.abort();
    // A cancelled context ends the delay: the channel's call then closes with its status.
    Runnable endEarly = context.wrap(() -> proceed(null, true));
    Context.CancellationListener onCancelled = c -> endEarly.run();
    contextListener = onCancelled;
    delayContext = context;
    Runnable afterDelay = context.wrap(() -> proceed(abort, true));
    boolean cancelledBeforeStart;
    synchronized (lock) {
      cancelledBeforeStart = cancelled != null;
      if (!cancelledBeforeStart) {
        timer = scheduler.schedule(afterDelay, wait, TimeUnit.NANOSECONDS);
      }
    }
    if (cancelledBeforeStart) {
      proceed(null, true);
      return;
    }
    context.addListener(onCancelled, Runnable::run);
    synchronized (lock) {
      if (!proceeded) {
        return;
      }
    }
    context.removeListener(onCancelled); // the delay ended meanwhile
  }

  /**
   * Makes the channel's call and starts it (cancelled first when the call was cancelled or is
   * aborted), then replays what was buffered. Runs once; {@code fault} says a decided fault ends
   * here.
   */
  private void proceed(Status abort, boolean fault) {
    Status cancel;
    ScheduledFuture<?> delay;
    synchronized (lock) {
      if (proceeded) {
        return;
      }
      proceeded = true;
      cancel = cancelled;
      delay = timer;
    }
    if (delay != null) {
      delay.cancel(false);
    }
    ClientCall<ReqT, RespT> call = next.newCall(method, options);
    if (delayContext != null) {
      delayContext.removeListener(contextListener);
    }
    if (fault) {
      faults.finished();
    }
    Listener<RespT> target = listener;
    if (cancel != null) {
      call.cancel(cancel.getDescription(), cancel.getCause());
    } else if (abort != null) {
      call.cancel("aborted by fault injection", null);
      target = new AbortListener<>(listener, abort);
    }
    call.start(target, headers);
    if (cancel != null || abort != null) {
      synchronized (lock) {
        pending = null; // a call closed before it started takes nothing more
      }
      return;
    }
    drain(call);
  }

  private void drain(ClientCall<ReqT, RespT> call) {
    while (true) {
      List<Consumer<ClientCall<ReqT, RespT>>> batch;
      synchronized (lock) {
        if (pending.isEmpty()) {
          delegate = call;
          pending = null;
          return;
        }
        batch = pending;
        pending = new ArrayList<>();
      }
      for (Consumer<ClientCall<ReqT, RespT>> op : batch) {
        op.accept(call);
      }
    }
  }

  /** Runs {@code op} on the channel's call, now or once it exists and earlier ones ran. */
  private void run(Consumer<ClientCall<ReqT, RespT>> op) {
    ClientCall<ReqT, RespT> call = delegate;
    if (call == null) {
      synchronized (lock) {
        call = delegate;
        if (call == null) {
          if (pending != null) {
            pending.add(op);
          }
          return;
        }
      }
    }
    op.accept(call);
  }

  @Override
  public void request(int numMessages) {
    run(call -> call.request(numMessages));
  }

  @Override
  public void sendMessage(ReqT message) {
    run(call -> call.sendMessage(message));
  }

  @Override
  public void halfClose() {
    run(ClientCall::halfClose);
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    run(call -> call.setMessageCompression(enabled));
  }

  @Override
  public boolean isReady() {
    ClientCall<ReqT, RespT> call = delegate;
    return call != null && call.isReady();
  }

  @Override
  public void cancel(String message, Throwable cause) {
    boolean passed;
    boolean endDelay = false;
    synchronized (lock) {
      passed = proceeded;
      if (!passed) {
        if (cancelled == null) {
          Status status =
              Status.CANCELLED.withDescription(
                  message != null ? message : "cancelled while delayed by fault injection");
          cancelled = cause != null ? status.withCause(cause) : status;
        }
        endDelay = timer != null; // started and delayed; before start, start() sees it
      }
    }
    if (passed) {
      run(call -> call.cancel(message, cause));
    } else if (endDelay) {
      proceed(null, true); // ends the delay: the listener hears CANCELLED through the channel
    }
  }

  private static Deadline earlier(Deadline a, Deadline b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isBefore(b) ? a : b;
  }

  /** Turns the close of a call cancelled before it started into the injected abort. */
  private static final class AbortListener<RespT>
      extends ForwardingClientCallListener.SimpleForwardingClientCallListener<RespT> {
    private final Status abort;

    AbortListener(Listener<RespT> delegate, Status abort) {
      super(delegate);
      this.abort = abort;
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      super.onClose(abort, new Metadata());
    }
  }

  @Override
  public String toString() {
    return "FaultCall{" + method.getFullMethodName() + "}";
  }
}
