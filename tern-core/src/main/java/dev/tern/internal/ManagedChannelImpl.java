package dev.tern.internal;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptors;
import dev.tern.ConnectivityState;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The runtime's {@link ManagedChannel}: one target address, at most one connection in use at a
 * time, calls queued while it connects, reconnect back-off, idle mode and an orderly shutdown. See
 * {@link ChannelConnection} for the state machine and {@link ClientCallImpl} for the calls.
 *
 * <p>Calls go through the configured interceptors (the last one added runs first); an interceptor
 * that throws yields a call that fails with a status describing it.
 *
 * <p>Application callbacks (call listeners, state-change callbacks, credentials) run on the
 * configured executor, else {@link SharedExecutors#callbackExecutor()}; with {@code directExecutor}
 * they run inline on the thread that produced the event.
 *
 * <p>Thread-safe: immutable itself; the mutable state lives in {@link ChannelConnection}.
 */
public final class ManagedChannelImpl extends ManagedChannel {
  private static final Executor DIRECT = Runnable::run;

  private final ChannelConfig config;
  private final Executor executor;
  private final ChannelConnection connection;
  private final Channel interceptedChannel;

  /** Creates a channel; it connects lazily, on the first call or {@code getState(true)}. */
  public ManagedChannelImpl(ChannelConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    if (config.directExecutor()) {
      executor = DIRECT;
    } else if (config.executor() != null) {
      executor = config.executor();
    } else {
      executor = SharedExecutors.callbackExecutor();
    }
    this.connection = new ChannelConnection(config, executor);
    this.interceptedChannel =
        ClientInterceptors.intercept(new CallFactory(), config.interceptors());
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(callOptions, "callOptions");
    return interceptedChannel.newCall(method, callOptions);
  }

  @Override
  public String authority() {
    return config.authority();
  }

  /**
   * Refuses new calls (they fail UNAVAILABLE "Channel shutdown invoked") and fails the calls still
   * waiting for a connection; calls in flight finish. Idempotent.
   */
  @Override
  public ManagedChannelImpl shutdown() {
    connection.shutdown(false);
    return this;
  }

  /** Like {@link #shutdown()}, and cancels the calls in flight with UNAVAILABLE. */
  @Override
  public ManagedChannelImpl shutdownNow() {
    connection.shutdown(true);
    return this;
  }

  @Override
  public boolean isShutdown() {
    return connection.isShutdown();
  }

  /** True once shut down, every transport has terminated and the transport factory is closed. */
  @Override
  public boolean isTerminated() {
    return connection.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    return connection.awaitTermination(timeout, unit);
  }

  @Override
  public ConnectivityState getState(boolean requestConnection) {
    return connection.getState(requestConnection);
  }

  @Override
  public void notifyWhenStateChanged(ConnectivityState source, Runnable callback) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(callback, "callback");
    connection.notifyWhenStateChanged(source, callback);
  }

  @Override
  public void enterIdle() {
    connection.enterIdle();
  }

  /**
   * Forgets the reconnect back-off; if the channel is in TRANSIENT_FAILURE it reconnects now. (A
   * new call in TRANSIENT_FAILURE does not cut the back-off short.)
   */
  @Override
  public void resetConnectBackoff() {
    connection.resetConnectBackoff();
  }

  @Override
  public String toString() {
    return "ManagedChannelImpl{address="
        + config.address()
        + ", authority="
        + config.authority()
        + "}";
  }

  /** The innermost channel, below the interceptors: makes the real calls. */
  private final class CallFactory extends Channel {
    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
      return new ClientCallImpl<>(
          method,
          callOptions,
          connection,
          config,
          connection.scheduler(),
          executor,
          config.directExecutor());
    }

    @Override
    public String authority() {
      return config.authority();
    }
  }
}
