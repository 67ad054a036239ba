package dev.tern.inprocess;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One in-process connection: the client transport a channel owns, joined by direct method calls to
 * the {@link ServerTransport} the {@link InProcessServer} of the same name hands to its runtime.
 * There is no socket, no framing and no thread: every event is delivered on the thread whose call
 * caused it (a client's {@code writeMessage} runs the server's {@code messageRead}, and so on).
 *
 * <p>{@link #start} returns a task that looks the server up by name. If it is registered, the
 * server side is created ({@code transportCreated}, then {@code transportReady} with the attributes
 * below) and the client listener gets {@code transportReady}; otherwise the client listener gets
 * {@code transportShutdown(UNAVAILABLE "Could not find server: NAME")} and {@code
 * transportTerminated}. Attributes on both sides: {@link Grpc#TRANSPORT_ATTR_REMOTE_ADDR} and
 * {@link Grpc#TRANSPORT_ATTR_LOCAL_ADDR} are the server's {@link InProcessSocketAddress}, and the
 * security level is {@link SecurityLevel#PRIVACY_AND_INTEGRITY} (no one can observe the bytes).
 *
 * <p>Either side may shut the connection down: the client with {@link #shutdown}/{@link
 * #shutdownNow}, the server runtime through its {@link ServerTransport}. Then new streams fail
 * UNAVAILABLE, the client listener gets {@code transportShutdown}, and once the last stream has
 * ended both listeners get {@code transportTerminated}.
 *
 * <p>Thread-safety: every method may be called from any thread. {@code lock} guards the connection
 * state (lifecycle flags and the set of live streams); streams have locks of their own, and the two
 * are never held together. Listener events are enqueued while the lock is held (so they keep the
 * order of the state changes) and run after it is released, one at a time per side, by the {@link
 * CallbackQueue}s {@code clientEvents} and {@code serverEvents}.
 */
final class InProcessTransport implements ManagedClientTransport {
  private final InProcessSocketAddress address;
  private final String authority;
  private final String userAgent;
  private final int maxInboundMetadataSize;
  private final Attributes attributes;
  private final ServerSide serverTransport = new ServerSide();
  private final CallbackQueue clientEvents = new CallbackQueue(false);
  private final CallbackQueue serverEvents = new CallbackQueue(false);

  private final Object lock = new Object();

  @GuardedBy("lock")
  private Listener listener;

  @GuardedBy("lock")
  private boolean connectDone;

  @GuardedBy("lock")
  private boolean ready;

  /** No new streams; the client listener has been (or, if not started, will be) told why. */
  @GuardedBy("lock")
  private boolean shutdown;

  @GuardedBy("lock")
  private Status shutdownStatus;

  @GuardedBy("lock")
  private boolean clientShutdownCalled;

  @GuardedBy("lock")
  private boolean serverShutdownCalled;

  @GuardedBy("lock")
  private boolean terminated;

  @GuardedBy("lock")
  private ServerTransportListener serverListener;

  @GuardedBy("lock")
  private final Set<InProcessStream> streams = new HashSet<>();

  /** Written before the server runtime sees the server side; read by it and by new streams. */
  private volatile InProcessServer server;

  /** What the server runtime's {@code transportReady} returned; seen by server streams. */
  private volatile Attributes serverAttributes;

  /**
   * A client transport to the server named by {@code address}. Applications use {@link
   * InProcessChannelBuilder}; this constructor is for transport-level tests.
   *
   * @param authority the default {@code :authority} of calls, seen by the server stream
   * @param userAgent sent as {@code user-agent} with every call, or null for none
   * @param maxInboundMetadataSize largest response header or trailer list accepted
   * @throws IllegalArgumentException if {@code maxInboundMetadataSize} is not positive
   */
  public InProcessTransport(
      InProcessSocketAddress address,
      String authority,
      String userAgent,
      int maxInboundMetadataSize) {
    this.address = Objects.requireNonNull(address, "address");
    this.authority = Objects.requireNonNull(authority, "authority");
    this.userAgent = userAgent;
    this.maxInboundMetadataSize =
        InProcessServer.requirePositive(maxInboundMetadataSize, "maxInboundMetadataSize");
    this.attributes =
        Attributes.newBuilder()
            .set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, address)
            .set(Grpc.TRANSPORT_ATTR_LOCAL_ADDR, address)
            .set(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL, SecurityLevel.PRIVACY_AND_INTEGRITY)
            .build();
    this.serverAttributes = attributes;
  }

  /**
   * Returns the task that connects (see the class description); run it after releasing locks.
   *
   * @throws IllegalStateException if already started
   */
  @Override
  public Runnable start(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    synchronized (lock) {
      if (this.listener != null) {
        throw new IllegalStateException("already started");
      }
      this.listener = listener;
      if (shutdown) {
        // shutdown() came first and had no listener to tell.
        Status status = shutdownStatus;
        clientEvents.enqueue(() -> listener.transportShutdown(status));
      }
    }
    return this::connect;
  }

  private void connect() {
    InProcessServer found = InProcessServer.find(address.getName());
    boolean shutdownFirst;
    synchronized (lock) {
      shutdownFirst = shutdown;
    }
    ServerTransportListener createdListener = null;
    if (found != null && !shutdownFirst) {
      server = found;
      createdListener = found.listener().transportCreated(serverTransport);
      ServerTransportListener readyListener = createdListener;
      serverEvents.enqueue(() -> serverAttributes = readyListener.transportReady(attributes));
      // Run it now: if the server's filters reject the connection (shutting it down from inside
      // transportReady), the client is told shutdown rather than ready.
      serverEvents.drain();
    }
    synchronized (lock) {
      connectDone = true;
      if (createdListener != null) {
        serverListener = createdListener;
        if (!shutdown) {
          ready = true;
          Listener l = listener;
          clientEvents.enqueue(l::transportReady);
        }
      } else {
        shutdownLocked(
            Status.UNAVAILABLE.withDescription("Could not find server: " + address.getName()));
      }
      maybeTerminateLocked();
    }
    drainTransportEvents();
  }

  /**
   * A stream for one call; nothing happens until it is started. If the transport cannot take it
   * then, it fails UNAVAILABLE ({@code DROPPED}), after the client listener has been told of the
   * shutdown (so a channel stops offering this transport before the call is retried).
   */
  @Override
  public ClientStream newStream(
      MethodDescriptor<?, ?> method, Metadata headers, CallOptions callOptions) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(callOptions, "callOptions");
    String callAuthority = callOptions.getAuthority();
    return new InProcessStream(
            this,
            method.getFullMethodName(),
            headers,
            callAuthority != null ? callAuthority : authority)
        .clientStream();
  }

  /** Answers {@code onSuccess(0)} on {@code executor}, or UNAVAILABLE once shut down. */
  @Override
  public void ping(PingCallback callback, Executor executor) {
    Objects.requireNonNull(callback, "callback");
    Objects.requireNonNull(executor, "executor");
    Status failure;
    synchronized (lock) {
      if (shutdown) {
        failure = Status.UNAVAILABLE.withDescription("transport is shut down");
      } else if (!ready) {
        failure = Status.UNAVAILABLE.withDescription("transport is not ready");
      } else {
        failure = null;
      }
    }
    executor.execute(
        () -> {
          if (failure == null) {
            callback.onSuccess(0);
          } else {
            callback.onFailure(failure);
          }
        });
  }

  /** The server's address as both remote and local address; PRIVACY_AND_INTEGRITY. */
  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public void shutdown(Status reason) {
    Objects.requireNonNull(reason, "reason");
    synchronized (lock) {
      if (clientShutdownCalled) {
        return;
      }
      clientShutdownCalled = true;
      shutdownLocked(reason);
      maybeTerminateLocked();
    }
    drainTransportEvents();
  }

  /** Shuts down and cancels every live stream with {@code reason} (the server sees CANCELLED). */
  @Override
  public void shutdownNow(Status reason) {
    shutdown(reason);
    for (InProcessStream stream : liveStreams()) {
      stream.clientStream().cancel(reason);
    }
  }

  @Override
  public String toString() {
    return "InProcessTransport{" + address.getName() + "}";
  }

  // ---- used by InProcessStream ----

  /** The server's limit on request metadata, or no limit while not connected (start fails then). */
  int serverMaxInboundMetadataSize() {
    InProcessServer s = server;
    return s != null ? s.maxInboundMetadataSize() : Integer.MAX_VALUE;
  }

  /** The server's default inbound message limit for a new server stream. */
  int serverMaxInboundMessageSize() {
    InProcessServer s = server;
    return s != null ? s.maxInboundMessageSize() : Integer.MAX_VALUE;
  }

  int clientMaxInboundMetadataSize() {
    return maxInboundMetadataSize;
  }

  String userAgent() {
    return userAgent;
  }

  Attributes serverAttributes() {
    return serverAttributes;
  }

  /**
   * Adds a starting stream and queues its {@code streamCreated}; the caller drains {@link
   * #drainTransportEvents} afterwards.
   *
   * @return null, or why the stream cannot start (UNAVAILABLE)
   */
  Status register(InProcessStream stream) {
    synchronized (lock) {
      if (shutdown) {
        Status status = shutdownStatus;
        return status.getCode() == Status.Code.UNAVAILABLE
            ? status
            : Status.UNAVAILABLE.withDescription(status.getDescription());
      }
      if (!ready) {
        return Status.UNAVAILABLE.withDescription("transport is not ready");
      }
      streams.add(stream);
      if (streams.size() == 1) {
        Listener l = listener;
        clientEvents.enqueue(() -> l.transportInUse(true));
      }
      ServerTransportListener l = serverListener;
      serverEvents.enqueue(() -> stream.createOnServer(l));
      return null;
    }
  }

  /** Removes a stream whose both sides have ended. */
  void streamFinished(InProcessStream stream) {
    synchronized (lock) {
      if (!streams.remove(stream)) {
        return;
      }
      if (streams.isEmpty()) {
        Listener l = listener;
        clientEvents.enqueue(() -> l.transportInUse(false));
        maybeTerminateLocked();
      }
    }
    drainTransportEvents();
  }

  /**
   * Runs {@code task} after every client connection event queued so far (on this thread, or on the
   * thread running them now).
   */
  void afterTransportEvents(Runnable task) {
    clientEvents.enqueue(task);
    clientEvents.drain();
  }

  /** Runs pending connection events: the server side's first (it learns of streams first). */
  void drainTransportEvents() {
    serverEvents.drain();
    clientEvents.drain();
  }

  private List<InProcessStream> liveStreams() {
    synchronized (lock) {
      return new ArrayList<>(streams);
    }
  }

  @GuardedBy("lock")
  private void shutdownLocked(Status status) {
    if (shutdown) {
      return;
    }
    shutdown = true;
    shutdownStatus = status;
    Listener l = listener;
    if (l != null) {
      clientEvents.enqueue(() -> l.transportShutdown(status));
    }
  }

  @GuardedBy("lock")
  private void maybeTerminateLocked() {
    if (terminated || !shutdown || !connectDone || !streams.isEmpty()) {
      return;
    }
    terminated = true;
    // Bound here, under the lock: the queued events run after it is released.
    Listener l = listener;
    clientEvents.enqueue(l::transportTerminated);
    ServerTransportListener sl = serverListener;
    if (sl != null) {
      serverEvents.enqueue(sl::transportTerminated);
    }
  }

  /** The server runtime's view of this connection. Thread-safe, like the enclosing transport. */
  private final class ServerSide implements ServerTransport {
    /** Refuses new streams (clients see UNAVAILABLE); live streams finish. */
    @Override
    public void shutdown() {
      synchronized (lock) {
        if (serverShutdownCalled) {
          return;
        }
        serverShutdownCalled = true;
        shutdownLocked(Status.UNAVAILABLE.withDescription("server transport is shut down"));
        maybeTerminateLocked();
      }
      drainTransportEvents();
    }

    /** Shuts down and cancels every live stream; clients see {@code reason}. */
    @Override
    public void shutdownNow(Status reason) {
      Objects.requireNonNull(reason, "reason");
      shutdown();
      for (InProcessStream stream : liveStreams()) {
        stream.serverStream().cancel(reason);
      }
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      return server.getScheduledExecutorService();
    }

    @Override
    public String toString() {
      return "InProcessServerTransport{" + address.getName() + "}";
    }
  }
}
