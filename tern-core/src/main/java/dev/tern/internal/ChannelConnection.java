package dev.tern.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.CallOptions;
import dev.tern.ConnectivityState;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientTransportFactory;
import dev.tern.spi.ManagedClientTransport;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The connection of a {@link ManagedChannelImpl}: pick-first over its one address, so at most one
 * transport is in use for new calls at a time. It owns the connectivity state, the calls waiting
 * for a transport, the reconnect back-off, the idle timer, and the channel's shutdown and
 * termination.
 *
 * <p>States: IDLE (no transport; the first call or {@code getState(true)} connects), CONNECTING,
 * READY, TRANSIENT_FAILURE (the attempt failed; another starts after the back-off), SHUTDOWN. A
 * READY transport that shuts down (GOAWAY, connection lost) is dropped and the channel goes IDLE;
 * the calls on it finish on their own and the next call reconnects. In TRANSIENT_FAILURE a new
 * fail-fast call fails at once with the last connection error, and a wait-for-ready call waits;
 * neither cuts the back-off short (so failing calls cannot hammer a server that is down), only
 * {@link #resetConnectBackoff()} does.
 *
 * <p>Thread-safety: one private lock guards all mutable state. Transports, streams, listeners and
 * callbacks are never called with the lock held, with two deliberate exceptions that cannot call
 * back: {@link ClientTransportFactory#newClientTransport} (only constructs) and {@link
 * ManagedClientTransport#start} (whose returned task, which may report events, runs after the lock
 * is released). The scheduler is also called under the lock (it only queues tasks).
 */
final class ChannelConnection implements ClientStreamProvider {
  private static final Logger logger = Logger.getLogger(ChannelConnection.class.getName());

  static final Status SHUTDOWN_STATUS =
      Status.UNAVAILABLE.withDescription("Channel shutdown invoked");
  static final Status SHUTDOWN_NOW_STATUS =
      Status.UNAVAILABLE.withDescription("Channel shutdownNow invoked");
  static final Status IDLE_STATUS =
      Status.UNAVAILABLE.withDescription("Channel entering idle mode");

  private final ChannelConfig config;
  private final ClientTransportFactory factory;
  private final ScheduledExecutorService scheduler;
  private final Executor callbackExecutor;
  private final Object lock = new Object();

  /** Not thread-safe: used under the lock. */
  @GuardedBy("lock")
  private final BackoffPolicy backoff;

  /** Not thread-safe: used under the lock. */
  @GuardedBy("lock")
  private final ChannelIdleTimer idleTimer;

  private final Runnable reconnectTask = this::reconnect;
  private final CountDownLatch terminatedLatch = new CountDownLatch(1);

  /** The READY transport, read without the lock by new calls; written under the lock. */
  private volatile ManagedClientTransport readyTransport;

  @GuardedBy("lock")
  private boolean shutdown;

  @GuardedBy("lock")
  private boolean terminated;

  @GuardedBy("lock")
  private ConnectivityState state = ConnectivityState.IDLE;

  @GuardedBy("lock")
  private TransportEvents current;

  @GuardedBy("lock")
  private final List<TransportEvents> liveTransports = new ArrayList<>(2);

  @GuardedBy("lock")
  private int inUseCount;

  @GuardedBy("lock")
  private List<PendingStream> pending = new ArrayList<>();

  @GuardedBy("lock")
  private Status lastFailure;

  @GuardedBy("lock")
  private ScheduledFuture<?> reconnectFuture;

  @GuardedBy("lock")
  private List<Runnable> stateWaiters = new ArrayList<>();

  @GuardedBy("lock")
  private List<Runnable> dueStateWaiters = new ArrayList<>();

  /**
   * @param callbackExecutor runs state-change callbacks
   */
  ChannelConnection(ChannelConfig config, Executor callbackExecutor) {
    this.config = config;
    this.factory = config.transportFactory();
    this.scheduler = factory.getScheduledExecutorService();
    this.callbackExecutor = callbackExecutor;
    this.backoff = new BackoffPolicy(config.backoffRandom());
    this.idleTimer =
        new ChannelIdleTimer(
            scheduler, config.ticker(), config.idleTimeoutNanos(), this::idleTimerExpired);
  }

  /** The scheduler of the transport factory, for call deadlines. */
  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  @Override
  public ClientStream newStream(
      MethodDescriptor<?, ?> method,
      Metadata headers,
      CallOptions callOptions,
      Executor appExecutor) {
    ManagedClientTransport transport = readyTransport;
    if (transport != null) {
      return CallCredentialsApplier.newStream(
          transport, method, headers, callOptions, authorityFor(callOptions), appExecutor);
    }
    PendingStream queued = null;
    Status failure = null;
    Runnable startTask = null;
    synchronized (lock) {
      transport = readyTransport;
      if (shutdown) {
        failure = SHUTDOWN_STATUS;
      } else if (transport != null) {
        // Became ready meanwhile: use it below.
      } else if (state == ConnectivityState.TRANSIENT_FAILURE && !callOptions.isWaitForReady()) {
        failure = lastFailure;
      } else {
        queued = new PendingStream(this, method, headers, callOptions, appExecutor);
        pending.add(queued);
        idleTimer.disarm();
        if (state == ConnectivityState.IDLE) {
          startTask = connectLocked();
        }
      }
    }
    afterUnlock(startTask);
    if (failure != null) {
      return DelayedClientStream.failed(failure);
    }
    if (transport != null) {
      return CallCredentialsApplier.newStream(
          transport, method, headers, callOptions, authorityFor(callOptions), appExecutor);
    }
    return queued;
  }

  /** The state; with {@code requestConnection}, an IDLE channel starts connecting. */
  ConnectivityState getState(boolean requestConnection) {
    ConnectivityState result;
    Runnable startTask = null;
    synchronized (lock) {
      result = state;
      if (requestConnection && state == ConnectivityState.IDLE && !shutdown) {
        startTask = connectLocked();
      }
    }
    afterUnlock(startTask);
    return result;
  }

  /** Runs {@code callback} on the callback executor once the state is not {@code source}. */
  void notifyWhenStateChanged(ConnectivityState source, Runnable callback) {
    boolean runNow;
    synchronized (lock) {
      runNow = state != source;
      if (!runNow) {
        stateWaiters.add(callback);
      }
    }
    if (runNow) {
      runCallback(callback);
    }
  }

  /** Drops the current transport and goes IDLE; reconnects at once if calls are waiting. */
  void enterIdle() {
    ManagedClientTransport toShutdown;
    Runnable startTask = null;
    synchronized (lock) {
      if (shutdown) {
        return;
      }
      toShutdown = goIdleLocked();
      if (!pending.isEmpty()) {
        startTask = connectLocked();
      }
      updateIdleLocked();
    }
    if (toShutdown != null) {
      toShutdown.shutdown(IDLE_STATUS);
    }
    afterUnlock(startTask);
  }

  /** Forgets the back-off; in TRANSIENT_FAILURE, reconnects now. */
  void resetConnectBackoff() {
    Runnable startTask = null;
    synchronized (lock) {
      backoff.reset();
      if (!shutdown && state == ConnectivityState.TRANSIENT_FAILURE) {
        cancelReconnectLocked();
        startTask = connectLocked();
      }
    }
    afterUnlock(startTask);
  }

  /**
   * Shuts down: new calls and calls still waiting for a transport fail UNAVAILABLE; the transport
   * is shut down, so calls in flight finish ({@code now} cancels them too).
   */
  void shutdown(boolean now) {
    Status status = now ? SHUTDOWN_NOW_STATUS : SHUTDOWN_STATUS;
    List<PendingStream> toFail = null;
    ManagedClientTransport toShutdown = null;
    List<ManagedClientTransport> toShutdownNow = null;
    boolean terminatedNow = false;
    synchronized (lock) {
      if (!shutdown) {
        shutdown = true;
        toFail = pending;
        pending = new ArrayList<>(0);
        toShutdown = dropCurrentLocked();
        cancelReconnectLocked();
        idleTimer.cancel();
        setStateLocked(ConnectivityState.SHUTDOWN);
        terminatedNow = checkTerminatedLocked();
      }
      if (now) {
        toShutdownNow = new ArrayList<>(liveTransports.size());
        for (TransportEvents events : liveTransports) {
          toShutdownNow.add(events.transport);
        }
      }
    }
    failAll(toFail, status);
    if (toShutdown != null) {
      toShutdown.shutdown(status);
    }
    if (toShutdownNow != null) {
      for (ManagedClientTransport transport : toShutdownNow) {
        transport.shutdownNow(status);
      }
    }
    if (terminatedNow) {
      finishTermination();
    }
    runDueStateWaiters();
  }

  boolean isShutdown() {
    synchronized (lock) {
      return shutdown;
    }
  }

  boolean isTerminated() {
    return terminatedLatch.getCount() == 0;
  }

  boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return terminatedLatch.await(timeout, unit);
  }

  private String authorityFor(CallOptions callOptions) {
    String authority = callOptions.getAuthority();
    return authority != null ? authority : config.authority();
  }

  /** Creates and starts a transport; returns the task to run once the lock is released. */
  @GuardedBy("lock")
  private Runnable connectLocked() {
    ManagedClientTransport transport =
        factory.newClientTransport(config.address(), config.authority(), config.userAgent());
    TransportEvents events = new TransportEvents(transport);
    current = events;
    liveTransports.add(events);
    setStateLocked(ConnectivityState.CONNECTING);
    updateIdleLocked();
    return transport.start(events);
  }

  /** Forgets the current transport (the caller shuts it down after unlocking) and goes IDLE. */
  @GuardedBy("lock")
  private ManagedClientTransport goIdleLocked() {
    ManagedClientTransport dropped = dropCurrentLocked();
    cancelReconnectLocked();
    backoff.reset();
    lastFailure = null;
    setStateLocked(ConnectivityState.IDLE);
    return dropped;
  }

  @GuardedBy("lock")
  private ManagedClientTransport dropCurrentLocked() {
    TransportEvents dropped = current;
    current = null;
    readyTransport = null;
    return dropped == null ? null : dropped.transport;
  }

  @GuardedBy("lock")
  private void cancelReconnectLocked() {
    if (reconnectFuture != null) {
      reconnectFuture.cancel(false);
      reconnectFuture = null;
    }
  }

  @GuardedBy("lock")
  private void setStateLocked(ConnectivityState newState) {
    if (state == newState) {
      return;
    }
    state = newState;
    if (!stateWaiters.isEmpty()) {
      dueStateWaiters.addAll(stateWaiters);
      stateWaiters.clear();
    }
  }

  /** Arms the idle timer when nothing uses the channel, disarms it otherwise. */
  @GuardedBy("lock")
  private void updateIdleLocked() {
    if (shutdown) {
      return;
    }
    if (inUseCount == 0 && pending.isEmpty() && state != ConnectivityState.IDLE) {
      idleTimer.arm();
    } else {
      idleTimer.disarm();
    }
  }

  @GuardedBy("lock")
  private boolean checkTerminatedLocked() {
    if (shutdown && !terminated && liveTransports.isEmpty()) {
      terminated = true;
      return true;
    }
    return false;
  }

  @GuardedBy("lock")
  private List<PendingStream> removeFailFastLocked() {
    List<PendingStream> failFast = null;
    for (Iterator<PendingStream> it = pending.iterator(); it.hasNext(); ) {
      PendingStream stream = it.next();
      if (!stream.callOptions.isWaitForReady()) {
        if (failFast == null) {
          failFast = new ArrayList<>();
        }
        failFast.add(stream);
        it.remove();
      }
    }
    return failFast;
  }

  private void afterUnlock(Runnable startTask) {
    if (startTask != null) {
      startTask.run();
    }
    runDueStateWaiters();
  }

  private void runDueStateWaiters() {
    List<Runnable> due;
    synchronized (lock) {
      if (dueStateWaiters.isEmpty()) {
        return;
      }
      due = dueStateWaiters;
      dueStateWaiters = new ArrayList<>();
    }
    for (Runnable callback : due) {
      runCallback(callback);
    }
  }

  private void runCallback(Runnable callback) {
    try {
      callbackExecutor.execute(callback);
    } catch (RejectedExecutionException e) {
      logger.log(Level.WARNING, "Executor rejected a state-change callback", e);
    }
  }

  private static void failAll(List<PendingStream> streams, Status status) {
    if (streams != null) {
      for (PendingStream stream : streams) {
        stream.fail(status);
      }
    }
  }

  private void dispatch(List<PendingStream> streams, ManagedClientTransport transport) {
    for (PendingStream stream : streams) {
      if (!stream.isEnded()) {
        stream.setStream(
            CallCredentialsApplier.newStream(
                transport,
                stream.method,
                stream.headers,
                stream.callOptions,
                authorityFor(stream.callOptions),
                stream.appExecutor));
      }
    }
  }

  private void finishTermination() {
    try {
      factory.close();
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "Closing the transport factory failed", e);
    } finally {
      terminatedLatch.countDown();
    }
  }

  private void pendingStreamCancelled(PendingStream stream) {
    synchronized (lock) {
      if (pending.remove(stream)) {
        updateIdleLocked();
      }
    }
  }

  private void reconnect() {
    Runnable startTask;
    synchronized (lock) {
      reconnectFuture = null;
      if (shutdown || state != ConnectivityState.TRANSIENT_FAILURE) {
        return;
      }
      startTask = connectLocked();
    }
    afterUnlock(startTask);
  }

  private void idleTimerExpired() {
    ManagedClientTransport toShutdown;
    synchronized (lock) {
      if (!idleTimer.expiredLocked() || shutdown || inUseCount > 0 || !pending.isEmpty()) {
        return;
      }
      toShutdown = goIdleLocked();
    }
    if (toShutdown != null) {
      toShutdown.shutdown(IDLE_STATUS);
    }
    runDueStateWaiters();
  }

  /** Events of one transport. */
  private final class TransportEvents implements ManagedClientTransport.Listener {
    final ManagedClientTransport transport;

    @GuardedBy("ChannelConnection.this.lock")
    boolean inUse;

    @GuardedBy("ChannelConnection.this.lock")
    boolean shutdownReported;

    TransportEvents(ManagedClientTransport transport) {
      this.transport = transport;
    }

    @Override
    public void transportReady() {
      List<PendingStream> toDispatch = null;
      synchronized (lock) {
        if (current != this || state != ConnectivityState.CONNECTING) {
          return; // dropped (idle, shutdown) before it got ready
        }
        readyTransport = transport;
        lastFailure = null;
        backoff.reset();
        setStateLocked(ConnectivityState.READY);
        if (!pending.isEmpty()) {
          toDispatch = pending;
          pending = new ArrayList<>();
        }
        updateIdleLocked();
      }
      if (toDispatch != null) {
        dispatch(toDispatch, transport);
      }
      runDueStateWaiters();
    }

    @Override
    public void transportShutdown(Status status) {
      List<PendingStream> toFail = null;
      Status failure = null;
      Runnable startTask = null;
      synchronized (lock) {
        if (shutdownReported) {
          return;
        }
        shutdownReported = true;
        if (current != this) {
          return; // already dropped by the channel
        }
        current = null;
        readyTransport = null;
        if (state == ConnectivityState.READY) {
          setStateLocked(ConnectivityState.IDLE);
          if (!pending.isEmpty()) {
            startTask = connectLocked();
          }
        } else {
          // The connection attempt failed.
          failure =
              status.isOk()
                  ? Status.UNAVAILABLE.withDescription("transport closed before it was ready")
                  : status;
          lastFailure = failure;
          setStateLocked(ConnectivityState.TRANSIENT_FAILURE);
          toFail = removeFailFastLocked();
          reconnectFuture =
              scheduler.schedule(reconnectTask, backoff.nextBackoffNanos(), TimeUnit.NANOSECONDS);
        }
        updateIdleLocked();
      }
      failAll(toFail, failure);
      afterUnlock(startTask);
    }

    @Override
    public void transportTerminated() {
      boolean reportShutdown;
      synchronized (lock) {
        reportShutdown = !shutdownReported;
      }
      if (reportShutdown) {
        transportShutdown(
            Status.UNAVAILABLE.withDescription("transport terminated without shutting down"));
      }
      boolean terminatedNow;
      synchronized (lock) {
        liveTransports.remove(this);
        if (inUse) {
          inUse = false;
          inUseCount--;
          updateIdleLocked();
        }
        terminatedNow = checkTerminatedLocked();
      }
      if (terminatedNow) {
        finishTermination();
      }
    }

    @Override
    public void transportInUse(boolean inUse) {
      synchronized (lock) {
        if (this.inUse == inUse) {
          return;
        }
        this.inUse = inUse;
        inUseCount += inUse ? 1 : -1;
        updateIdleLocked();
      }
    }

    @Override
    public String toString() {
      return "TransportEvents{" + transport + "}";
    }
  }

  /** A call waiting for a transport: what is needed to make its stream once one is ready. */
  private static final class PendingStream extends DelayedClientStream {
    final ChannelConnection connection;
    final MethodDescriptor<?, ?> method;
    final Metadata headers;
    final CallOptions callOptions;
    final Executor appExecutor;

    PendingStream(
        ChannelConnection connection,
        MethodDescriptor<?, ?> method,
        Metadata headers,
        CallOptions callOptions,
        Executor appExecutor) {
      this.connection = connection;
      this.method = method;
      this.headers = headers;
      this.callOptions = callOptions;
      this.appExecutor = appExecutor;
    }

    @Override
    void cancelledWithoutRealStream() {
      connection.pendingStreamCancelled(this);
    }
  }
}
