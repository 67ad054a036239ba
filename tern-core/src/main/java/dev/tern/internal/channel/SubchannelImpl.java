package dev.tern.internal.channel;

import dev.tern.Attributes;
import dev.tern.Channel;
import dev.tern.ConnectivityState;
import dev.tern.ConnectivityStateInfo;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.channelz.CallStats;
import dev.tern.channelz.ChannelStats;
import dev.tern.channelz.Channelz;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.InstrumentedSocket;
import dev.tern.channelz.Ref;
import dev.tern.channelz.SocketStats;
import dev.tern.channelz.TraceEvent;
import dev.tern.channelz.TraceLog;
import dev.tern.internal.BackoffPolicy;
import dev.tern.internal.client.AdaptiveThrottling;
import dev.tern.internal.client.BackendThrottle;
import dev.tern.spi.ClientTransportFactory;
import dev.tern.spi.ManagedClientTransport;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;

/**
 * The channel's {@link LoadBalancer.Subchannel}: the connection lifecycle of one server. States:
 * IDLE (no transport; {@link #requestConnection()} connects), CONNECTING (trying the addresses in
 * order, the next one when one fails), READY (a transport is up; the call path reads it from {@link
 * #readyTransport()}), TRANSIENT_FAILURE (every address failed; after the back-off it goes IDLE and
 * its balancer decides whether to connect again), SHUTDOWN. A READY transport that is lost goes
 * IDLE too: reconnecting is the balancer's choice.
 *
 * <p>Thread-safety: every state change happens in the channel's synchronization context (transport
 * events hop into it); public methods may be called from any thread and queue their work there.
 * Only {@link #readyTransport()} is read from other threads, through an atomic reference, and
 * {@link #throttle()}, final and thread-safe.
 */
final class SubchannelImpl extends LoadBalancer.Subchannel {
  static final Status SHUTDOWN_STATUS =
      Status.UNAVAILABLE.withDescription("Subchannel shut down by its load balancer");

  private final SynchronizationContext sync;
  private final ClientTransportFactory factory;
  private final ScheduledExecutorService timer;
  private final String authority;
  private final String userAgent;
  private final ChannelUsage usage;
  private final Attributes attributes;
  private final Consumer<SubchannelImpl> onTerminated;
  private final BackoffPolicy backoff;
  private final SubchannelChannel channel;
  private final Node node = new Node();
  private final SubchannelMetrics metrics;

  /** Its backend's client-side adaptive throttle; null when the channel has none. */
  private final BackendThrottle throttle;

  // Confined to the synchronization context.
  private volatile List<EquivalentAddressGroup> addresses; // also read by getAllAddresses()
  private volatile String addressesText; // addresses.toString(), channelz's name: read by snapshots
  private int groupIndex;
  private int addressIndex;
  private LoadBalancer.SubchannelStateListener listener;
  private ConnectivityStateInfo state = ConnectivityStateInfo.forNonError(ConnectivityState.IDLE);
  private TransportEvents connecting;
  private TransportEvents active;
  private final Set<TransportEvents> live = new LinkedHashSet<>();
  private SynchronizationContext.ScheduledHandle backoffTimer;
  private boolean shutdown;
  private boolean terminated;

  /**
   * The READY transport, or null: read lock-free by the call path. Set in the synchronization
   * context; cleared there, and also at once by the transport's own shutdown event (before that
   * event reaches the context), so no call picks a transport that has begun to shut down.
   */
  private final AtomicReference<ManagedClientTransport> readyTransport = new AtomicReference<>();

  SubchannelImpl(
      List<EquivalentAddressGroup> addresses,
      Attributes attributes,
      SynchronizationContext sync,
      ClientTransportFactory factory,
      String authority,
      String userAgent,
      ChannelUsage usage,
      DoubleSupplier backoffRandom,
      Consumer<SubchannelImpl> onTerminated,
      ChannelConfig config,
      Executor callExecutor) {
    this.addresses = List.copyOf(addresses);
    this.addressesText = this.addresses.toString();
    this.attributes = attributes;
    this.sync = sync;
    this.factory = factory;
    this.timer = factory.getScheduledExecutorService();
    this.authority = authority;
    this.userAgent = userAgent;
    this.usage = usage;
    this.backoff = new BackoffPolicy(backoffRandom);
    this.onTerminated = onTerminated;
    this.channel = new SubchannelChannel(this, config, callExecutor, authority);
    AdaptiveThrottling throttling = config.adaptiveThrottling();
    this.throttle = throttling == null ? null : throttling.newBackend(addressesText);
    this.metrics =
        new SubchannelMetrics(
            config.metricRecorder(),
            attributes,
            addresses.isEmpty() ? Attributes.EMPTY : addresses.get(0).getAttributes());
    Channelz.global().addSubchannel(node);
  }

  /** This subchannel as channelz sees it. */
  Instrumented<ChannelStats> channelzNode() {
    return node;
  }

  /** The READY transport, or null if the subchannel is not READY. */
  ManagedClientTransport readyTransport() {
    return readyTransport.get();
  }

  /**
   * The client-side adaptive throttle of this subchannel's backend, or null when the channel does
   * not throttle. Its history is this subchannel's: a balancer that replaces the subchannel starts
   * the new one afresh.
   */
  BackendThrottle throttle() {
    return throttle;
  }

  @Override
  public void start(LoadBalancer.SubchannelStateListener listener) {
    Objects.requireNonNull(listener, "listener");
    sync.throwIfNotInThisSynchronizationContext();
    if (this.listener != null) {
      throw new IllegalStateException("subchannel already started");
    }
    this.listener = listener;
  }

  @Override
  public void requestConnection() {
    sync.execute(this::connectIfIdle);
  }

  @Override
  public void shutdown() {
    shutdown(SHUTDOWN_STATUS);
  }

  /**
   * Shuts down for the channel's own reason (idle mode, channel shutdown): calls in flight finish;
   * {@code status} is what the transports report to streams that have not started.
   */
  void shutdown(Status status) {
    sync.execute(() -> shutdownInContext(status));
  }

  /** Shuts down and cancels the calls in flight with {@code status} (channel shutdownNow). */
  void shutdownNow(Status status) {
    sync.execute(
        () -> {
          shutdownInContext(status);
          for (TransportEvents events : new ArrayList<>(live)) {
            events.transport.shutdownNow(status);
          }
        });
  }

  /** Forgets the back-off; a subchannel waiting it out goes IDLE now. */
  void resetBackoff() {
    sync.execute(
        () -> {
          backoff.reset();
          if (backoffTimer != null && backoffTimer.isPending()) {
            backoffTimer.cancel();
            backoffTimer = null;
            setState(ConnectivityStateInfo.forNonError(ConnectivityState.IDLE));
          }
        });
  }

  @Override
  public List<EquivalentAddressGroup> getAllAddresses() {
    return addresses;
  }

  @Override
  public void updateAddresses(List<EquivalentAddressGroup> newAddresses) {
    Objects.requireNonNull(newAddresses, "addresses");
    if (newAddresses.isEmpty()) {
      throw new IllegalArgumentException("addresses must not be empty");
    }
    List<EquivalentAddressGroup> copy = List.copyOf(newAddresses);
    sync.execute(() -> updateAddressesInContext(copy));
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public Channel asChannel() {
    return channel;
  }

  @Override
  public String toString() {
    return "Subchannel{" + addresses + "}";
  }

  private void connectIfIdle() {
    if (!shutdown && state.getState() == ConnectivityState.IDLE) {
      connectNext();
    }
  }

  /** Starts a transport to the current address; we are in the synchronization context. */
  private void connectNext() {
    EquivalentAddressGroup group = addresses.get(groupIndex);
    SocketAddress address = group.getAddresses().get(addressIndex);
    ManagedClientTransport transport;
    try {
      transport = factory.newClientTransport(address, authority, userAgent, group.getAttributes());
    } catch (RuntimeException e) {
      // The factory is closed (the channel is terminating) or rejects the address.
      metrics.attemptFailed();
      setState(
          ConnectivityStateInfo.forTransientFailure(
              Status.UNAVAILABLE
                  .withDescription(
                      "cannot create a transport to " + address + ": " + e.getMessage())
                  .withCause(e)));
      scheduleBackoff();
      return;
    }
    TransportEvents events = new TransportEvents(transport, address);
    connecting = events;
    live.add(events);
    node.trace.add("Connecting to " + address, TraceEvent.Severity.INFO);
    Instrumented<SocketStats> socket = transport.channelzSocket();
    if (socket != null) {
      node.sockets.add(socket);
    }
    setState(ConnectivityStateInfo.forNonError(ConnectivityState.CONNECTING));
    Runnable startTask = transport.start(events);
    if (startTask != null) {
      startTask.run(); // its events hop into the context and run after this task
    }
  }

  private void onReady(TransportEvents events) {
    if (events != connecting || shutdown || events.shutdownReported) {
      return; // its shutdown event follows and counts it as a failed attempt
    }
    connecting = null;
    active = events;
    metrics.attemptSucceeded();
    metrics.connectionOpened(events.transport);
    readyTransport.set(events.transport);
    backoff.reset();
    groupIndex = 0;
    addressIndex = 0;
    setState(ConnectivityStateInfo.forNonError(ConnectivityState.READY));
  }

  private void onShutdown(TransportEvents events, Status status) {
    if (events.shutdownSeen) {
      return;
    }
    events.shutdownSeen = true;
    if (events == active) {
      active = null;
      readyTransport.set(null);
      metrics.disconnected(events.transport, shutdown ? null : status);
      if (!shutdown) {
        setState(ConnectivityStateInfo.forNonError(ConnectivityState.IDLE));
      }
    } else if (events == connecting) {
      connecting = null;
      if (shutdown) {
        return; // an attempt cut short by shutdown is neither a success nor a failure (A94)
      }
      metrics.attemptFailed();
      if (advanceAddress()) {
        connectNext();
        return;
      }
      Status error =
          status.isOk()
              ? Status.UNAVAILABLE.withDescription(
                  "connection to " + events.address + " closed before it was ready")
              : status;
      setState(ConnectivityStateInfo.forTransientFailure(error));
      scheduleBackoff();
    }
  }

  private void onTerminated(TransportEvents events) {
    if (!events.shutdownSeen) {
      onShutdown(
          events, Status.UNAVAILABLE.withDescription("transport terminated without shutting down"));
    }
    events.use.release();
    live.remove(events);
    node.retire(events.transport.channelzSocket());
    checkTerminated();
  }

  private boolean advanceAddress() {
    if (addressIndex + 1 < addresses.get(groupIndex).getAddresses().size()) {
      addressIndex++;
      return true;
    }
    if (groupIndex + 1 < addresses.size()) {
      groupIndex++;
      addressIndex = 0;
      return true;
    }
    groupIndex = 0;
    addressIndex = 0;
    return false;
  }

  private void scheduleBackoff() {
    backoffTimer =
        sync.schedule(
            () -> {
              backoffTimer = null;
              if (!shutdown) {
                setState(ConnectivityStateInfo.forNonError(ConnectivityState.IDLE));
              }
            },
            backoff.nextBackoffNanos(),
            TimeUnit.NANOSECONDS,
            timer);
  }

  private void shutdownInContext(Status status) {
    if (shutdown) {
      return;
    }
    shutdown = true;
    if (backoffTimer != null) {
      backoffTimer.cancel();
      backoffTimer = null;
    }
    readyTransport.set(null);
    TransportEvents wasActive = active;
    TransportEvents wasConnecting = connecting;
    active = null;
    connecting = null;
    setState(ConnectivityStateInfo.forNonError(ConnectivityState.SHUTDOWN));
    if (wasActive != null) {
      metrics.disconnected(wasActive.transport, null);
      wasActive.transport.shutdown(status);
    }
    if (wasConnecting != null) {
      wasConnecting.transport.shutdown(status);
    }
    checkTerminated();
  }

  private void updateAddressesInContext(List<EquivalentAddressGroup> newAddresses) {
    addresses = newAddresses;
    addressesText = newAddresses.toString();
    groupIndex = 0;
    addressIndex = 0;
    if (shutdown) {
      return;
    }
    if (active != null && !contains(newAddresses, active.address)) {
      TransportEvents dropped = active;
      active = null;
      readyTransport.set(null);
      dropped.shutdownSeen = true;
      metrics.disconnected(dropped.transport, null);
      setState(ConnectivityStateInfo.forNonError(ConnectivityState.IDLE));
      dropped.transport.shutdown(
          Status.UNAVAILABLE.withDescription("address removed by the name resolver"));
    } else if (connecting != null && !contains(newAddresses, connecting.address)) {
      TransportEvents dropped = connecting;
      connecting = null;
      dropped.shutdownSeen = true;
      dropped.transport.shutdown(
          Status.UNAVAILABLE.withDescription("address removed by the name resolver"));
      connectNext();
    }
  }

  private static boolean contains(List<EquivalentAddressGroup> groups, SocketAddress address) {
    for (EquivalentAddressGroup group : groups) {
      if (group.getAddresses().contains(address)) {
        return true;
      }
    }
    return false;
  }

  private void checkTerminated() {
    if (shutdown && live.isEmpty() && !terminated) {
      terminated = true;
      Channelz.global().removeSubchannel(node);
      onTerminated.accept(this);
    }
  }

  private void setState(ConnectivityStateInfo newState) {
    if (state.getState() == ConnectivityState.SHUTDOWN) {
      return;
    }
    if (newState.equals(state) && newState.getState() != ConnectivityState.TRANSIENT_FAILURE) {
      return;
    }
    state = newState;
    node.state = newState.getState();
    Status error = newState.getStatus();
    node.trace.add(
        "Subchannel state changed to "
            + newState.getState()
            + (error.isOk() ? "" : " (" + error.getCode() + ": " + error.getDescription() + ")"),
        error.isOk() ? TraceEvent.Severity.INFO : TraceEvent.Severity.WARNING);
    if (listener != null) {
      listener.onSubchannelState(newState);
    }
  }

  /**
   * The subchannel as channelz sees it: its calls are the streams of its connections (those open
   * now plus the totals of those closed), its state and trace are its own. Registered from creation
   * until terminated.
   *
   * <p>Thread-safe: the sockets are a concurrent set and the closed connections' totals one
   * volatile snapshot, both written only in the synchronization context; snapshots read them from
   * any thread. A connection that closes while a snapshot is taken may be missed in it or counted
   * twice; the next snapshot is right again.
   */
  private final class Node implements Instrumented<ChannelStats> {
    final long id = Channelz.allocateId();
    final TraceLog trace = new TraceLog();
    final Set<Instrumented<SocketStats>> sockets = ConcurrentHashMap.newKeySet();
    volatile ConnectivityState state = ConnectivityState.IDLE;
    volatile CallStats retired = CallStats.NONE;

    Node() {
      trace.add("Subchannel created", TraceEvent.Severity.INFO);
    }

    /**
     * A connection terminated: its final counts move into the totals, read alone when the socket
     * can report them so (no snapshot of its addresses, options and TLS session).
     */
    void retire(Instrumented<SocketStats> socket) {
      if (socket != null && sockets.remove(socket)) {
        CallStats calls =
            socket instanceof InstrumentedSocket counted
                ? counted.streamCounts()
                : callsOf(socket.channelzStats());
        retired = retired.plus(calls);
      }
    }

    @Override
    public long channelzId() {
      return id;
    }

    @Override
    public String channelzName() {
      return addressesText;
    }

    @Override
    public ChannelStats channelzStats() {
      CallStats calls = retired;
      List<Ref> refs = new ArrayList<>();
      for (Instrumented<SocketStats> socket : sockets) {
        calls = calls.plus(callsOf(socket.channelzStats()));
        refs.add(socket.channelzRef());
      }
      refs.sort((a, b) -> Long.compare(a.id(), b.id()));
      return new ChannelStats(addressesText, state, calls, trace.snapshot(), List.of(), refs);
    }

    private static CallStats callsOf(SocketStats stats) {
      return new CallStats(
          stats.streamsStarted(),
          stats.streamsSucceeded(),
          stats.streamsFailed(),
          stats.lastLocalStreamCreated());
    }
  }

  /** One transport's events, carried into the synchronization context. */
  private final class TransportEvents implements ManagedClientTransport.Listener {
    final ManagedClientTransport transport;
    final SocketAddress address;
    final ChannelUsage.TransportUse use = usage.newTransportUse();

    /** Confined to the synchronization context. */
    boolean shutdownSeen;

    /** Set by the transport's shutdown event at once, before it reaches the context. */
    volatile boolean shutdownReported;

    TransportEvents(ManagedClientTransport transport, SocketAddress address) {
      this.transport = transport;
      this.address = address;
    }

    @Override
    public void transportReady() {
      sync.execute(() -> onReady(this));
    }

    @Override
    public void transportShutdown(Status status) {
      // A GOAWAY: new calls must go elsewhere now, not once the balancer has heard of it (a call
      // that picked this transport meanwhile would be refused, and its one transparent retry
      // could pick it again).
      shutdownReported = true;
      readyTransport.compareAndSet(transport, null);
      sync.execute(() -> onShutdown(this, status));
    }

    @Override
    public void transportTerminated() {
      sync.execute(() -> onTerminated(this));
    }

    @Override
    public void transportInUse(boolean inUse) {
      use.set(inUse);
    }

    @Override
    public String toString() {
      return "TransportEvents{" + address + "}";
    }
  }
}
