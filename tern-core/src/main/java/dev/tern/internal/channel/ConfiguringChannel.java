package dev.tern.internal.channel;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptors;
import dev.tern.ConfigSelector;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.channelz.CallCounter;
import dev.tern.internal.client.CallSettings;
import dev.tern.internal.client.ClientCallImpl;
import dev.tern.internal.client.ClientStreamProvider;
import dev.tern.internal.client.DelayedClientStream;
import dev.tern.internal.config.MethodConfig;
import dev.tern.internal.config.ServiceConfig;
import dev.tern.internal.retry.RetryBuffer;
import dev.tern.internal.retry.RetryPolicyStreams;
import dev.tern.internal.retry.RetryThrottle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A channel's innermost {@link Channel}, below its interceptors: chooses each call's configuration
 * before the call exists, and makes the call born with it. The configuration comes from the
 * resolver's {@link ConfigSelector} if its latest result had one, else from the service config in
 * force (the {@code methodConfig} entry naming the call's method or service).
 *
 * <p>With the service config's own choice, {@link #newCall} looks the method up (one volatile read,
 * and a map lookup only if the config has method configs) and returns a {@link ClientCallImpl}. A
 * resolver's selector needs the call's headers, so such a call is a {@link DelayedCall} that
 * selects as it starts. Before the first resolution, calls are {@link DelayedCall}s that wait here
 * (the channel counts as in use, and leaves idle mode to resolve) until {@link #update} puts a
 * configuration in force or {@link #shutdown} fails them.
 *
 * <p>Whatever the source, a call's streams come from the retry layer ({@link RetryPolicyStreams},
 * when its method config has a retry or hedging policy and retries are on) or straight from the
 * balancer ({@link BalancerStreams}).
 *
 * <p>Thread-safe: the configuration in force is one volatile field, set from the channel's
 * synchronization context; the waiting calls are guarded by a private lock, which is never held
 * while calling out.
 */
final class ConfiguringChannel extends Channel {
  private static final Logger logger = Logger.getLogger(ConfiguringChannel.class.getName());

  private final BalancerStreams balancer;
  private final BalancerStreams.Owner owner;
  private final ServiceConfigOptions options;
  private final CallSettings settings;
  private final CallCounter channelCalls;
  private final String authority;
  private final RetryBuffer retryBuffer;
  private final DoubleSupplier random;
  private final Object lock = new Object();

  /** The configuration in force; null until known. */
  private volatile Selection current;

  @GuardedBy("lock")
  private List<DelayedCall<?, ?>> waiting = new ArrayList<>();

  @GuardedBy("lock")
  private Status shutdownStatus;

  /**
   * Set with {@link #shutdownStatus}, for {@link #newCall}'s lock-free path: a call made after
   * shutdown takes the waiting path, which fails it, instead of being picked onto a transport that
   * is still READY while it drains the calls in flight.
   */
  private volatile boolean shutDown;

  /**
   * A configuration in force.
   *
   * @param config the service config
   * @param selector the resolver's selector, or null: the config's method configs apply
   * @param retries the retry layer for this config, or null if retries are off
   */
  record Selection(ServiceConfig config, ConfigSelector selector, RetryPolicyStreams retries) {}

  ConfiguringChannel(
      BalancerStreams balancer,
      BalancerStreams.Owner owner,
      ServiceConfigOptions options,
      CallSettings settings,
      CallCounter channelCalls,
      String authority,
      DoubleSupplier random) {
    this.balancer = balancer;
    this.owner = owner;
    this.options = options;
    this.settings = settings;
    this.channelCalls = channelCalls;
    this.authority = authority;
    this.random = random;
    this.retryBuffer = new RetryBuffer(options.retryBufferSize(), options.perRpcBufferLimit());
    if (!options.lookUp()) {
      ServiceConfig fixed = options.defaultConfig();
      current = selection(fixed != null ? fixed : ServiceConfig.EMPTY, null, null);
    }
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    Selection known = current;
    if (known != null && known.selector == null && !shutDown) {
      return configuredCall(method, callOptions, lookUp(known.config, method), known);
    }
    return new DelayedCall<>(this, method, callOptions, settings.scheduler());
  }

  @Override
  public String authority() {
    return authority;
  }

  /**
   * The status a call starting now fails with: the shutdown's, or null while the channel is open.
   */
  Status refusal() {
    if (!shutDown) {
      return null;
    }
    synchronized (lock) {
      return shutdownStatus;
    }
  }

  /** The configuration in force, or null while none is known. */
  Selection current() {
    return current;
  }

  /** Whether a configuration is in force. */
  boolean hasConfig() {
    return current != null;
  }

  /**
   * Puts {@code config} and {@code selector} (null: none) in force for the calls that start from
   * now on, and lets the waiting calls go on. Called from the channel's synchronization context.
   */
  void update(ServiceConfig config, ConfigSelector selector) {
    Selection previous = current;
    if (previous != null && previous.config.equals(config) && previous.selector == selector) {
      return;
    }
    Selection next = selection(config, selector, previous != null ? previous.retries : null);
    List<DelayedCall<?, ?>> ready;
    synchronized (lock) {
      current = next;
      ready = waiting;
      waiting = new ArrayList<>(0);
    }
    for (DelayedCall<?, ?> call : ready) {
      call.proceed(next);
    }
    if (!ready.isEmpty()) {
      owner.callsQueued(-ready.size());
    }
  }

  private Selection selection(
      ServiceConfig config, ConfigSelector selector, RetryPolicyStreams previousRetries) {
    RetryPolicyStreams retries = null;
    if (options.retryEnabled()) {
      RetryThrottle throttle =
          RetryThrottle.forPolicy(
              config.retryThrottling(),
              previousRetries != null ? previousRetries.throttle() : null);
      retries =
          new RetryPolicyStreams(
              balancer,
              throttle,
              options.maxRetryAttempts(),
              options.maxHedgedAttempts(),
              settings.scheduler(),
              random,
              retryBuffer);
    }
    return new Selection(config, selector, retries);
  }

  /**
   * A call that starts while no configuration is known: it waits (and the channel leaves idle mode
   * to resolve), or is failed at once if the channel is shut down, or goes on at once if a
   * configuration arrived meanwhile.
   */
  void await(DelayedCall<?, ?> call) {
    Selection arrived;
    Status failure;
    synchronized (lock) {
      failure = shutdownStatus;
      arrived = current;
      if (failure == null && arrived == null) {
        waiting.add(call);
      }
    }
    if (failure != null) {
      call.fail(failure);
    } else if (arrived != null) {
      call.proceed(arrived);
    } else {
      owner.callsQueued(1); // the channel is in use, and must resolve to learn its config
      owner.exitIdle();
    }
  }

  /** A waiting call ended by itself (cancelled, deadline, context): it no longer waits. */
  void stopWaiting(DelayedCall<?, ?> call) {
    boolean removed;
    synchronized (lock) {
      removed = waiting.remove(call);
    }
    if (removed) {
      owner.callsQueued(-1);
    }
  }

  /** Fails the calls waiting for a configuration, and later ones, with {@code status}. */
  void shutdown(Status status) {
    List<DelayedCall<?, ?>> toFail;
    synchronized (lock) {
      if (shutdownStatus != null) {
        return;
      }
      shutdownStatus = status;
      shutDown = true;
      toFail = waiting;
      waiting = new ArrayList<>(0);
    }
    for (DelayedCall<?, ?> call : toFail) {
      call.fail(status);
    }
    if (!toFail.isEmpty()) {
      owner.callsQueued(-toFail.size());
    }
  }

  /**
   * The call {@code call} becomes under {@code selection}: configured by the service config, or by
   * the resolver's selector (given the call's headers), through the selector's interceptor if it
   * chose one; or a call that fails with the selector's error.
   */
  <ReqT, RespT> ClientCall<ReqT, RespT> callFor(
      DelayedCall<ReqT, RespT> call, Selection selection) {
    MethodDescriptor<ReqT, RespT> method = call.method();
    CallOptions callOptions = call.getCallOptions();
    if (selection.selector == null) {
      return configuredCall(method, callOptions, lookUp(selection.config, method), selection);
    }
    ConfigSelector.Result result;
    try {
      result = selection.selector.select(call);
    } catch (RuntimeException | Error e) {
      logger.log(Level.SEVERE, "The name resolver's config selector threw", e);
      return failedCall(
          method,
          callOptions,
          Status.INTERNAL.withDescription("the config selector threw: " + e).withCause(e));
    }
    if (result == null) {
      return failedCall(
          method,
          callOptions,
          Status.INTERNAL.withDescription("the config selector returned null"));
    }
    if (result.getError() != null) {
      return failedCall(method, callOptions, result.getError());
    }
    Object chosen = result.getMethodConfig();
    MethodConfig methodConfig;
    if (chosen == null) {
      methodConfig = MethodConfig.NONE;
    } else if (chosen instanceof MethodConfig parsed) {
      methodConfig = parsed;
    } else {
      return failedCall(
          method,
          callOptions,
          Status.INTERNAL.withDescription(
              "the config selector's method config was not made by the channel's parser"
                  + " (NameResolver.ServiceConfigParser.parseMethodConfig): "
                  + chosen.getClass().getName()));
    }
    if (result.getInterceptor() == null) {
      return configuredCall(method, callOptions, methodConfig, selection);
    }
    Channel configured =
        new Channel() {
          @Override
          public <I, O> ClientCall<I, O> newCall(MethodDescriptor<I, O> next, CallOptions options) {
            return configuredCall(next, options, methodConfig, selection);
          }

          @Override
          public String authority() {
            return authority;
          }
        };
    return ClientInterceptors.intercept(configured, result.getInterceptor())
        .newCall(method, callOptions);
  }

  /** A call born with {@code methodConfig}, whose streams come from the right layer. */
  private <ReqT, RespT> ClientCall<ReqT, RespT> configuredCall(
      MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions,
      MethodConfig methodConfig,
      Selection selection) {
    ClientStreamProvider streams =
        selection.retries != null && methodConfig.hasRetryOrHedging()
            ? selection.retries
            : balancer;
    return new ClientCallImpl<>(method, callOptions, methodConfig, streams, settings, channelCalls);
  }

  /** A call whose stream fails with {@code status} as it starts. */
  <ReqT, RespT> ClientCall<ReqT, RespT> failedCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Status status) {
    return new ClientCallImpl<>(
        method,
        callOptions,
        MethodConfig.NONE,
        (args, methodConfig, deadline, executor) -> DelayedClientStream.failed(status),
        settings,
        channelCalls);
  }

  /**
   * A call whose stream never gets a real one: for a waiting call that ends by itself (its cancel,
   * deadline or context, which the call then applies as it would to any call).
   */
  <ReqT, RespT> ClientCall<ReqT, RespT> parkedCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    return new ClientCallImpl<>(
        method,
        callOptions,
        MethodConfig.NONE,
        (args, methodConfig, deadline, executor) -> new DelayedClientStream(),
        settings,
        channelCalls);
  }

  private static MethodConfig lookUp(ServiceConfig config, MethodDescriptor<?, ?> method) {
    if (!config.hasMethodConfigs()) {
      return MethodConfig.NONE;
    }
    MethodConfig found = config.methodConfig(method.getFullMethodName(), method.getServiceName());
    return found != null ? found : MethodConfig.NONE;
  }
}
