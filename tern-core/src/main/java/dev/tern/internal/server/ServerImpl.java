package dev.tern.internal.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Context;
import dev.tern.HandlerRegistry;
import dev.tern.NonBlockingScope;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import dev.tern.channelz.CallCounter;
import dev.tern.channelz.Channelz;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.Ref;
import dev.tern.channelz.ServerStats;
import dev.tern.channelz.SocketStats;
import dev.tern.internal.SharedExecutors;
import dev.tern.spi.ServerListener;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import dev.tern.spi.TransportServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Tern's {@link Server}: the lifecycle of one {@link TransportServer} and the connections it
 * accepts. Calls are handled by the {@link ServerCallDispatcher}; each connection by a {@link
 * ServerConnection}.
 *
 * <p>Lifecycle: {@link #start} starts the transport server. {@link #shutdown} stops it and shuts
 * down every connection gracefully (calls in flight finish; connections accepted afterwards are
 * shut down as soon as they are ready). {@link #shutdownNow} also cancels every call with
 * UNAVAILABLE. The server is terminated once the transport server reported {@code serverShutdown}
 * and every connection reported {@code transportTerminated}. A server that was never started, or
 * whose start failed, has nothing to wait for: shutdown terminates it at once (its transport server
 * is not touched).
 *
 * <p>Thread-safety: thread-safe. {@code lock} guards the lifecycle flags and the set of live
 * transports; {@code terminatedCondition} (on the same lock) wakes {@link #awaitTermination}. The
 * lock is never held while calling out to the transport server, transports, filters or handlers,
 * which may call back into this class from their own threads.
 */
public final class ServerImpl extends Server {
  private static final Status SHUTDOWN_NOW_STATUS =
      Status.UNAVAILABLE.withDescription("Server shutdownNow invoked");

  private final TransportServer transportServer;
  private final ServerCallDispatcher dispatcher;
  private final List<ServerServiceDefinition> services;
  private final List<ServerTransportFilter> filters;
  private final long handshakeTimeoutNanos;
  private final CallCounter calls;
  private final Node node = new Node();

  /** The parent of every call's context: it holds this server under {@link Server#CONTEXT_KEY}. */
  private final Context callContextParent = Context.ROOT.withValue(Server.CONTEXT_KEY, this);

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition terminatedCondition = lock.newCondition();

  @GuardedBy("lock")
  private boolean started;

  @GuardedBy("lock")
  private boolean transportServerRunning;

  @GuardedBy("lock")
  private boolean transportServerShutdown;

  @GuardedBy("lock")
  private boolean shutdown;

  @GuardedBy("lock")
  private boolean shutdownNowCalled;

  @GuardedBy("lock")
  private boolean terminated;

  @GuardedBy("lock")
  private final Set<ServerTransport> transports = new HashSet<>();

  /**
   * Creates a server (not started).
   *
   * @param services the services added to the builder, reported by {@link #getServices()}
   * @param filters run in order on every connection
   * @param handshakeTimeoutNanos how long a new connection may take to become ready
   * @param calls the call counts the dispatcher keeps, reported by channelz
   */
  public ServerImpl(
      TransportServer transportServer,
      ServerCallDispatcher dispatcher,
      List<ServerServiceDefinition> services,
      List<ServerTransportFilter> filters,
      long handshakeTimeoutNanos,
      CallCounter calls) {
    this.transportServer = Objects.requireNonNull(transportServer, "transportServer");
    this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
    this.services = List.copyOf(services);
    this.filters = List.copyOf(filters);
    if (handshakeTimeoutNanos <= 0) {
      throw new IllegalArgumentException("handshakeTimeoutNanos must be > 0");
    }
    this.handshakeTimeoutNanos = handshakeTimeoutNanos;
    this.calls = Objects.requireNonNull(calls, "calls");
  }

  /** This server's channelz id (registered in {@link Channelz#global()} while it runs). */
  public long channelzId() {
    return node.channelzId();
  }

  /**
   * {@inheritDoc}
   *
   * <p>If the transport server fails to start, the exception propagates and this server cannot be
   * started again; {@link #shutdown} then terminates it at once.
   */
  @Override
  public ServerImpl start() throws IOException {
    lock.lock();
    try {
      if (started) {
        throw new IllegalStateException("Server already started");
      }
      if (shutdown) {
        throw new IllegalStateException("Server is shut down");
      }
      started = true;
    } finally {
      lock.unlock();
    }
    try {
      transportServer.start(new TransportServerListener());
    } catch (IOException | RuntimeException | Error e) {
      lock.lock();
      try {
        transportServerShutdown = true; // it never ran, so it will never report serverShutdown
        checkForTermination();
      } finally {
        lock.unlock();
      }
      throw e;
    }
    boolean shutdownWhileStarting;
    lock.lock();
    try {
      transportServerRunning = true;
      shutdownWhileStarting = shutdown;
      if (!terminated) {
        Channelz.global().addServer(node);
      }
    } finally {
      lock.unlock();
    }
    if (shutdownWhileStarting) {
      transportServer.shutdown();
    }
    return this;
  }

  /** The port of the first {@link InetSocketAddress} listened on, or -1 (e.g. in-process). */
  @Override
  public int getPort() {
    for (SocketAddress address : getListenSockets()) {
      if (address instanceof InetSocketAddress) {
        return ((InetSocketAddress) address).getPort();
      }
    }
    return -1;
  }

  @Override
  public List<? extends SocketAddress> getListenSockets() {
    lock.lock();
    try {
      if (!transportServerRunning) {
        return List.of();
      }
    } finally {
      lock.unlock();
    }
    return List.copyOf(transportServer.getListenSocketAddresses());
  }

  @Override
  public List<ServerServiceDefinition> getServices() {
    return services;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Asks the fallback registry on the calling thread; an exception it throws propagates.
   */
  @Override
  public List<ServerServiceDefinition> getMutableServices() {
    HandlerRegistry fallback = dispatcher.fallbackRegistry();
    return fallback == null ? List.of() : List.copyOf(fallback.getServices());
  }

  /** The context every call's context derives from; it holds this server. */
  Context callContextParent() {
    return callContextParent;
  }

  @Override
  public ServerImpl shutdown() {
    boolean shutdownTransportServer;
    List<ServerTransport> toShutdown;
    lock.lock();
    try {
      if (shutdown) {
        return this;
      }
      shutdown = true;
      if (!started) {
        transportServerShutdown = true;
      }
      shutdownTransportServer = transportServerRunning;
      toShutdown = new ArrayList<>(transports);
      checkForTermination();
    } finally {
      lock.unlock();
    }
    if (shutdownTransportServer) {
      transportServer.shutdown();
    }
    for (ServerTransport transport : toShutdown) {
      transport.shutdown();
    }
    return this;
  }

  @Override
  public ServerImpl shutdownNow() {
    shutdown();
    List<ServerTransport> toCancel;
    lock.lock();
    try {
      if (shutdownNowCalled) {
        return this;
      }
      shutdownNowCalled = true;
      toCancel = new ArrayList<>(transports);
    } finally {
      lock.unlock();
    }
    for (ServerTransport transport : toCancel) {
      transport.shutdownNow(SHUTDOWN_NOW_STATUS);
    }
    return this;
  }

  @Override
  public boolean isShutdown() {
    lock.lock();
    try {
      return shutdown;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isTerminated() {
    lock.lock();
    try {
      return terminated;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    NonBlockingScope.checkMayBlock("Server.awaitTermination");
    long remainingNanos = unit.toNanos(timeout);
    lock.lock();
    try {
      while (!terminated) {
        if (remainingNanos <= 0) {
          return false;
        }
        remainingNanos = terminatedCondition.awaitNanos(remainingNanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void awaitTermination() throws InterruptedException {
    NonBlockingScope.checkMayBlock("Server.awaitTermination");
    lock.lock();
    try {
      while (!terminated) {
        terminatedCondition.await();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "ServerImpl[" + transportServer + "]";
  }

  /**
   * Called by a {@link ServerConnection} when its transport is ready: a connection accepted while
   * the server was shutting down is shut down the same way as those that were live at the time.
   */
  void transportReady(ServerTransport transport) {
    boolean shutdownRequested;
    boolean cancelCalls;
    lock.lock();
    try {
      shutdownRequested = shutdown;
      cancelCalls = shutdownNowCalled;
    } finally {
      lock.unlock();
    }
    if (cancelCalls) {
      transport.shutdownNow(SHUTDOWN_NOW_STATUS);
    } else if (shutdownRequested) {
      transport.shutdown();
    }
  }

  /** Called by a {@link ServerConnection} once its transport is gone (filters already told). */
  void transportTerminated(ServerTransport transport) {
    lock.lock();
    try {
      transports.remove(transport);
      checkForTermination();
    } finally {
      lock.unlock();
    }
  }

  @GuardedBy("lock")
  private void checkForTermination() {
    if (shutdown && transportServerShutdown && transports.isEmpty() && !terminated) {
      terminated = true;
      Channelz.global().removeServer(node);
      terminatedCondition.signalAll();
    }
  }

  /**
   * The server as channelz sees it: the dispatcher's call counts, the transport server's listening
   * sockets and the live connections. Registered from a successful start until terminated.
   * Thread-safe: the connections are copied under the lock.
   */
  private final class Node implements Instrumented<ServerStats> {
    private final long id = Channelz.allocateId();

    @Override
    public long channelzId() {
      return id;
    }

    @Override
    public String channelzName() {
      List<? extends SocketAddress> addresses = getListenSockets();
      return "Server " + (addresses.isEmpty() ? transportServer.toString() : addresses.toString());
    }

    @Override
    public ServerStats channelzStats() {
      List<ServerTransport> live;
      lock.lock();
      try {
        live = new ArrayList<>(transports);
      } finally {
        lock.unlock();
      }
      List<Ref> sockets = new ArrayList<>();
      for (ServerTransport transport : live) {
        Instrumented<SocketStats> socket = transport.channelzSocket();
        if (socket != null) {
          sockets.add(socket.channelzRef());
        }
      }
      sockets.sort((a, b) -> Long.compare(a.id(), b.id()));
      List<Ref> listening = new ArrayList<>();
      for (Instrumented<SocketStats> socket : transportServer.channelzListenSockets()) {
        listening.add(socket.channelzRef());
      }
      return new ServerStats(calls.snapshot(), listening, sockets);
    }
  }

  /** What the transport server reports to. Thread-safe (delegates to the lock). */
  private final class TransportServerListener implements ServerListener {
    @Override
    public boolean acceptConnection(SocketAddress local, SocketAddress remote) {
      for (ServerTransportFilter filter : filters) {
        if (!filter.acceptConnection(local, remote)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public ServerTransportListener transportCreated(ServerTransport transport) {
      ScheduledExecutorService scheduler = transport.getScheduledExecutorService();
      if (scheduler == null) {
        scheduler = SharedExecutors.timer();
      }
      ServerConnection connection =
          new ServerConnection(ServerImpl.this, transport, filters, dispatcher, scheduler);
      boolean shutdownRequested;
      boolean cancelCalls;
      lock.lock();
      try {
        transports.add(transport);
        shutdownRequested = shutdown;
        cancelCalls = shutdownNowCalled;
      } finally {
        lock.unlock();
      }
      if (cancelCalls) {
        scheduler.execute(() -> transport.shutdownNow(SHUTDOWN_NOW_STATUS));
      } else if (shutdownRequested) {
        // Accepted after shutdown(), before the listening socket closed: tell the client now, not
        // once its preface arrives (it may then already have sent calls, which would be refused
        // when their transparent retry was already spent). Not from here: the transport gets its
        // listener only when this returns. transportReady still checks, for any other race.
        scheduler.execute(transport::shutdown);
      }
      connection.startHandshakeTimer(handshakeTimeoutNanos);
      return connection;
    }

    @Override
    public void serverShutdown() {
      lock.lock();
      try {
        transportServerShutdown = true;
        checkForTermination();
      } finally {
        lock.unlock();
      }
    }
  }
}
