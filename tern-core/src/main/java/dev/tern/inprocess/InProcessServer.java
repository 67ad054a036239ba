package dev.tern.inprocess;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.internal.SharedExecutors;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ServerListener;
import dev.tern.spi.TransportServer;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The listening half of the in-process transport: a name in a process-wide registry. {@link
 * InProcessTransport}s started with that name connect to it while it is registered, from {@link
 * #start} until {@link #shutdown}; connections already made are not affected by {@code shutdown}.
 *
 * <p>Applications use {@link InProcessServerBuilder}; transport-level tests in this package drive
 * the SPI through this class directly.
 *
 * <p>Thread-safe: the lifecycle methods synchronize on this object; the registry is a concurrent
 * map. No listener is called while holding the lock.
 */
final class InProcessServer implements TransportServer {
  /**
   * One INFO line when a server registers its name and one when it unregisters it, naming the
   * target channels use ({@code inprocess:NAME}); nothing per call.
   */
  static final Logger LIFECYCLE_LOGGER = Logger.getLogger("dev.tern.inprocess.server");

  /** Every started, not yet shut down server, by name. */
  private static final ConcurrentMap<String, InProcessServer> REGISTRY = new ConcurrentHashMap<>();

  private final InProcessSocketAddress address;
  private final ScheduledExecutorService scheduler;
  private final int maxInboundMessageSize;
  private final int maxInboundMetadataSize;

  /** Set once by {@link #start}; read by connecting transports. */
  private volatile ServerListener listener;

  @GuardedBy("this")
  private boolean started;

  @GuardedBy("this")
  private boolean shutdown;

  /**
   * A server for {@code name} with the default limits (4 MiB messages, 8 KiB metadata) and the
   * shared timer.
   */
  public InProcessServer(String name) {
    this(
        name, null, GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE, GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE);
  }

  /**
   * A server for {@code name}.
   *
   * @param scheduler timer for server-side deadlines, or null for the process-wide shared timer;
   *     not shut down by this server
   * @param maxInboundMessageSize the default limit of each stream's inbound messages (the runtime
   *     may set another per stream)
   * @param maxInboundMetadataSize the largest request header list accepted, counted as HTTP/2 does
   * @throws IllegalArgumentException if {@code name} is empty, {@code maxInboundMessageSize} is
   *     negative or {@code maxInboundMetadataSize} is not positive
   */
  public InProcessServer(
      String name,
      ScheduledExecutorService scheduler,
      int maxInboundMessageSize,
      int maxInboundMetadataSize) {
    this.address = new InProcessSocketAddress(name);
    this.scheduler = scheduler != null ? scheduler : SharedExecutors.timer();
    if (maxInboundMessageSize < 0) {
      throw new IllegalArgumentException(
          "maxInboundMessageSize must be >= 0: " + maxInboundMessageSize);
    }
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.maxInboundMetadataSize = requirePositive(maxInboundMetadataSize, "maxInboundMetadataSize");
  }

  static int requirePositive(int value, String what) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be positive: " + value);
    }
    return value;
  }

  /** The started server registered under {@code name}, or null. */
  static InProcessServer find(String name) {
    return REGISTRY.get(name);
  }

  /**
   * Registers the name.
   *
   * @throws IOException if another started server holds the name ("name already registered")
   * @throws IllegalStateException if already started
   */
  @Override
  public void start(ServerListener listener) throws IOException {
    Objects.requireNonNull(listener, "listener");
    synchronized (this) {
      if (started) {
        throw new IllegalStateException("already started");
      }
      if (shutdown) {
        throw new IllegalStateException("already shut down");
      }
      this.listener = listener;
      if (REGISTRY.putIfAbsent(address.getName(), this) != null) {
        throw new IOException("name already registered: " + address.getName());
      }
      started = true;
    }
    LIFECYCLE_LOGGER.log(Level.INFO, "Tern server listening on {0}", target());
  }

  /**
   * Unregisters the name, so new connections fail, and reports {@code serverShutdown} (if the
   * server had started). Idempotent.
   */
  @Override
  public void shutdown() {
    boolean report;
    synchronized (this) {
      if (shutdown) {
        return;
      }
      shutdown = true;
      report = started;
      if (started) {
        REGISTRY.remove(address.getName(), this);
      }
    }
    if (report) {
      LIFECYCLE_LOGGER.log(Level.INFO, "Tern server on {0} stopped", target());
      listener.serverShutdown();
    }
  }

  /** One address, the {@link InProcessSocketAddress} of the name. */
  @Override
  public List<? extends SocketAddress> getListenSocketAddresses() {
    return List.of(address);
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return scheduler;
  }

  /** The target that reaches this server, e.g. {@code inprocess:my-server}. */
  private String target() {
    return InProcessChannelProvider.SCHEME + address.getName();
  }

  ServerListener listener() {
    return listener;
  }

  String name() {
    return address.getName();
  }

  int maxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  int maxInboundMetadataSize() {
    return maxInboundMetadataSize;
  }

  @Override
  public String toString() {
    return "InProcessServer{" + address.getName() + "}";
  }
}
