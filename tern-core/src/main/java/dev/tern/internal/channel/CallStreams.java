package dev.tern.internal.channel;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.CallOptions;
import dev.tern.Deadline;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.config.MethodConfig;
import dev.tern.internal.config.RetryThrottlingPolicy;
import dev.tern.internal.config.ServiceConfig;
import dev.tern.spi.ClientStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * Where a channel's calls get their streams, with the channel's service config applied: a call
 * whose method has a retry or hedging policy gets a {@link RetryingClientStream} whose attempts are
 * picked by the balancer; any other call gets its stream from {@link BalancerStreams} directly,
 * which costs it one volatile read and, when the config has method configs, one map lookup.
 *
 * <p>Until the channel knows its service config (its resolver has not answered yet, and service
 * config look-up is on), a starting call waits here in a {@link DelayedClientStream}; when the
 * config arrives, the call gets its method config (timeout, wait-for-ready, message limits) and
 * then its stream.
 *
 * <p>Thread-safe: the config is one volatile field, set from the channel's synchronization context;
 * the waiting calls are guarded by a private lock, which is never held while calling out.
 */
public final class CallStreams implements ClientStreamProvider {
  /** A method without a method config. */
  public static final MethodConfig NO_METHOD_CONFIG =
      new MethodConfig(null, null, null, null, null, null);

  private final BalancerStreams picks;
  private final BalancerStreams.Owner owner;
  private final ServiceConfigOptions options;
  private final ScheduledExecutorService scheduler;
  private final Deadline.Ticker ticker;
  private final DoubleSupplier random;
  private final RetryBuffer retryBuffer;
  private final Object lock = new Object();

  /** The config in force; null until known. */
  private volatile Active active;

  @GuardedBy("lock")
  private List<Waiting> waiting = new ArrayList<>();

  @GuardedBy("lock")
  private Status shutdownStatus;

  /** The config in force and the channel's throttle for it. */
  private record Active(ServiceConfig config, RetryThrottle throttle) {}

  CallStreams(
      BalancerStreams picks,
      BalancerStreams.Owner owner,
      ServiceConfigOptions options,
      ScheduledExecutorService scheduler,
      Deadline.Ticker ticker,
      DoubleSupplier random) {
    this.picks = picks;
    this.owner = owner;
    this.options = options;
    this.scheduler = scheduler;
    this.ticker = ticker;
    this.random = random;
    this.retryBuffer = new RetryBuffer(options.retryBufferSize(), options.perRpcBufferLimit());
    if (!options.lookUp()) {
      ServiceConfig fixed = options.defaultConfig();
      active = new Active(fixed != null ? fixed : ServiceConfig.EMPTY, throttleFor(fixed, null));
    }
  }

  /** The config in force, or null while it is not known. */
  ServiceConfig serviceConfig() {
    Active current = active;
    return current != null ? current.config : null;
  }

  /**
   * The method config for a call of {@code method} starting now: {@link #NO_METHOD_CONFIG} if it
   * has none, or null if the channel does not know its service config yet.
   */
  @Override
  public MethodConfig methodConfig(MethodDescriptor<?, ?> method) {
    Active current = active;
    if (current == null) {
      return null;
    }
    return lookUp(current.config, method);
  }

  private static MethodConfig lookUp(ServiceConfig config, MethodDescriptor<?, ?> method) {
    if (!config.hasMethodConfigs()) {
      return NO_METHOD_CONFIG;
    }
    MethodConfig found = config.methodConfig(method.getFullMethodName(), method.getServiceName());
    return found != null ? found : NO_METHOD_CONFIG;
  }

  @Override
  public ClientStream newStream(ClientCallImpl<?, ?> call, Executor appExecutor) {
    MethodConfig methodConfig = call.methodConfig();
    Active current = active;
    if (methodConfig == null) {
      if (current == null) {
        Waiting queued = null;
        synchronized (lock) {
          if (shutdownStatus != null) {
            return DelayedClientStream.failed(shutdownStatus);
          }
          current = active;
          if (current == null) {
            queued = new Waiting(call, appExecutor);
            waiting.add(queued);
          }
        }
        if (queued != null) {
          owner.callsQueued(1); // the channel is in use, and must resolve to learn its config
          owner.exitIdle();
          return queued;
        }
      }
      call.configure(lookUp(current.config, call.getMethodDescriptor()), null);
      methodConfig = call.methodConfig();
    }
    return streamFor(current, methodConfig, call, appExecutor);
  }

  private ClientStream streamFor(
      Active current, MethodConfig methodConfig, ClientCallImpl<?, ?> call, Executor appExecutor) {
    if (options.retryEnabled()) {
      AttemptPlan plan = null;
      if (methodConfig.retryPolicy() != null) {
        plan =
            AttemptPlan.retry(
                methodConfig.retryPolicy(),
                options.maxRetryAttempts(),
                current.throttle,
                scheduler,
                random);
      } else if (methodConfig.hedgingPolicy() != null) {
        plan =
            AttemptPlan.hedging(
                methodConfig.hedgingPolicy(),
                options.maxHedgedAttempts(),
                current.throttle,
                scheduler);
      }
      if (plan != null) {
        return new RetryingClientStream(
            call, call.deadline(), args -> picks.newStream(args, appExecutor), plan, retryBuffer);
      }
    }
    return picks.newStream(call, appExecutor);
  }

  /**
   * Puts {@code config} in force (null: the default config, or none) and lets the waiting calls go
   * on. Called from the channel's synchronization context.
   */
  void setServiceConfig(ServiceConfig config) {
    ServiceConfig effective = config != null ? config : ServiceConfig.EMPTY;
    Active previous = active;
    if (previous != null && previous.config.equals(effective)) {
      return;
    }
    Active next =
        new Active(effective, throttleFor(effective, previous != null ? previous.throttle : null));
    List<Waiting> ready;
    synchronized (lock) {
      active = next;
      ready = waiting;
      waiting = new ArrayList<>(0);
    }
    for (Waiting call : ready) {
      call.proceed(next);
    }
    if (!ready.isEmpty()) {
      owner.callsQueued(-ready.size());
    }
  }

  /** Whether the channel knows its service config. */
  boolean hasServiceConfig() {
    return active != null;
  }

  /** Fails the calls waiting for a config, and later ones, with {@code status}. */
  void shutdown(Status status) {
    List<Waiting> toFail;
    synchronized (lock) {
      if (shutdownStatus != null) {
        return;
      }
      shutdownStatus = status;
      toFail = waiting;
      waiting = new ArrayList<>(0);
    }
    for (Waiting call : toFail) {
      call.fail(status);
    }
    if (!toFail.isEmpty()) {
      owner.callsQueued(-toFail.size());
    }
  }

  /** A throttle for {@code config}: the previous one if its policy is unchanged. */
  private static RetryThrottle throttleFor(ServiceConfig config, RetryThrottle previous) {
    RetryThrottlingPolicy policy = config != null ? config.retryThrottling() : null;
    if (policy == null) {
      return null;
    }
    return previous != null && previous.policy().equals(policy)
        ? previous
        : new RetryThrottle(policy);
  }

  private void cancelled(Waiting call) {
    boolean removed;
    synchronized (lock) {
      removed = waiting.remove(call);
    }
    if (removed) {
      owner.callsQueued(-1);
    }
  }

  /**
   * {@code options} adjusted by {@code config} (gRFC A6 and the service config's method fields):
   * the earlier of the two deadlines, the config's wait-for-ready, and the smaller message limits.
   */
  public static CallOptions apply(
      MethodConfig config, CallOptions options, Deadline.Ticker ticker) {
    CallOptions result = options;
    if (config.timeoutNanos() != null) {
      Deadline fromConfig = Deadline.after(config.timeoutNanos(), TimeUnit.NANOSECONDS, ticker);
      Deadline current = result.getDeadline();
      if (current == null
          || fromConfig.timeRemaining(TimeUnit.NANOSECONDS)
              < current.timeRemaining(TimeUnit.NANOSECONDS)) {
        result = result.withDeadline(fromConfig);
      }
    }
    if (config.waitForReady() != null) {
      result = config.waitForReady() ? result.withWaitForReady() : result.withoutWaitForReady();
    }
    if (config.maxRequestMessageBytes() != null) {
      Integer current = result.getMaxOutboundMessageSize();
      int limit = config.maxRequestMessageBytes();
      result =
          result.withMaxOutboundMessageSize(current == null ? limit : Math.min(current, limit));
    }
    if (config.maxResponseMessageBytes() != null) {
      Integer current = result.getMaxInboundMessageSize();
      int limit = config.maxResponseMessageBytes();
      result = result.withMaxInboundMessageSize(current == null ? limit : Math.min(current, limit));
    }
    return result;
  }

  Deadline.Ticker ticker() {
    return ticker;
  }

  /** A call that started before the channel knew its service config. */
  private final class Waiting extends DelayedClientStream {
    private final ClientCallImpl<?, ?> call;
    private final Executor appExecutor;

    Waiting(ClientCallImpl<?, ?> call, Executor appExecutor) {
      this.call = Objects.requireNonNull(call, "call");
      this.appExecutor = appExecutor;
    }

    /** The config arrived: configures the call, then gives it its stream. */
    void proceed(Active config) {
      if (isEnded()) {
        return;
      }
      call.configure(lookUp(config.config, call.getMethodDescriptor()), this);
      ClientStream real = streamFor(config, call.methodConfig(), call, appExecutor);
      if (!setStream(real)) {
        Status ended = Status.CANCELLED.withDescription("call ended while waiting for its stream");
        if (real instanceof DelayedClientStream delayed) {
          delayed.cancel(ended); // leaves the balancer's queue
        } else if (real instanceof TracedClientStream traced) {
          traced.abandon(ended);
        }
      }
    }

    @Override
    protected void cancelledWithoutRealStream() {
      cancelled(this);
    }
  }
}
