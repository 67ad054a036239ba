package dev.tern.netty.internal.io;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.SocketAddress;

/**
 * The event loops and channel types the transport uses when the application gives none: one
 * process-wide pair of groups (a single acceptor thread, and twice as many workers as cores,
 * Netty's default), created on first use, made of daemon threads so they never keep a JVM alive,
 * and never shut down.
 *
 * <p>Their {@link TransportKind} is chosen once, by the system property {@value
 * #TRANSPORT_PROPERTY}: {@code nio}, {@code epoll} or {@code io_uring}. Without it, native epoll
 * when its classes and library load, NIO otherwise. A kind that is named but cannot run here is an
 * error (thrown when the groups are first needed, by a builder's {@code build()}), not a silent
 * fallback.
 *
 * <p>The channel type follows the group and the address: a TCP address gets the socket channel of
 * the group's kind; a Unix domain socket address the domain socket channel of that kind, or, when
 * the group is NIO (which Tern does not use for domain sockets), Tern's shared native groups: the
 * shared groups themselves if they are native, else a second shared pair of the first native kind
 * that runs here (epoll, then io_uring). With no native kind at all, a domain socket address is an
 * {@link IllegalArgumentException} naming the missing dependency.
 *
 * <p>Thread-safe: the kind and the lazy groups are set under the class lock.
 */
public final class EventLoops {
  /** The system property that chooses the kind of the shared groups. */
  public static final String TRANSPORT_PROPERTY = "dev.tern.netty.transport";

  @GuardedBy("EventLoops.class")
  private static TransportKind sharedKind;

  @GuardedBy("EventLoops.class")
  private static EventLoopGroup sharedBoss;

  @GuardedBy("EventLoops.class")
  private static EventLoopGroup sharedWorkers;

  /** The native pair for domain sockets when the shared groups are NIO; created on first use. */
  @GuardedBy("EventLoops.class")
  private static EventLoopGroup domainSocketBoss;

  @GuardedBy("EventLoops.class")
  private static EventLoopGroup domainSocketWorkers;

  private EventLoops() {}

  /** Whether native epoll is usable here. */
  public static boolean epollAvailable() {
    return TransportKind.EPOLL.isAvailable();
  }

  /**
   * The kind of the shared groups (see the class doc), decided on the first call.
   *
   * @throws IllegalStateException if {@value #TRANSPORT_PROPERTY} names no kind, or one that cannot
   *     run here
   */
  public static synchronized TransportKind sharedKind() {
    if (sharedKind == null) {
      sharedKind = chooseKind(System.getProperty(TRANSPORT_PROPERTY));
    }
    return sharedKind;
  }

  /**
   * The kind for the property value {@code property} (null when unset): see the class doc.
   *
   * @throws IllegalStateException if {@code property} names no kind, or one that cannot run here
   */
  public static TransportKind chooseKind(String property) {
    if (property == null || property.isEmpty()) {
      return TransportKind.EPOLL.isAvailable() ? TransportKind.EPOLL : TransportKind.NIO;
    }
    TransportKind kind;
    try {
      kind = TransportKind.named(property);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "-D" + TRANSPORT_PROPERTY + "=" + property + ": must be nio, epoll or io_uring", e);
    }
    if (!kind.isAvailable()) {
      throw new IllegalStateException(
          "-D"
              + TRANSPORT_PROPERTY
              + "="
              + property
              + ", but "
              + kind.id()
              + " is not available here: "
              + kind.unavailabilityReason());
    }
    return kind;
  }

  /** The shared worker group: serves connections of servers and channels that bring none. */
  public static synchronized EventLoopGroup sharedWorkerGroup() {
    if (sharedWorkers == null) {
      sharedWorkers = newGroup(sharedKind(), 0, "tern-netty-worker");
    }
    return sharedWorkers;
  }

  /** The shared acceptor group of servers that bring none. */
  public static synchronized EventLoopGroup sharedBossGroup() {
    if (sharedBoss == null) {
      sharedBoss = newGroup(sharedKind(), 1, "tern-netty-boss");
    }
    return sharedBoss;
  }

  private static EventLoopGroup newGroup(TransportKind kind, int threads, String name) {
    return new MultiThreadIoEventLoopGroup(
        threads, new DefaultThreadFactory(name, /* daemon= */ true), kind.ioHandlerFactory());
  }

  /** The TCP client channel type matching {@code group}: its kind's socket channel. */
  public static ChannelFactory<? extends Channel> clientChannelFactory(EventLoopGroup group) {
    return TransportKind.of(group).clientChannelFactory(false);
  }

  /** The TCP server channel type matching {@code group}: its kind's server socket channel. */
  public static ChannelFactory<? extends ServerChannel> serverChannelFactory(EventLoopGroup group) {
    return TransportKind.of(group).serverChannelFactory(false);
  }

  /** Where a client connection runs: its event loops and its channel type. */
  public record ClientLoops(
      EventLoopGroup group, ChannelFactory<? extends Channel> channelFactory) {}

  /** Where a server runs: its acceptor and worker loops, and its listening channel type. */
  public record ServerLoops(
      EventLoopGroup boss,
      EventLoopGroup workers,
      ChannelFactory<? extends ServerChannel> channelFactory) {}

  /**
   * The loops and channel type for a connection to {@code address} (a Netty address: see {@link
   * DomainSockets#toNetty}) wanted on {@code group}: see the class doc.
   *
   * @throws IllegalArgumentException for a domain socket address where no native kind runs
   */
  public static ClientLoops forClient(EventLoopGroup group, SocketAddress address) {
    if (!DomainSockets.isDomainSocket(address)) {
      return new ClientLoops(group, clientChannelFactory(group));
    }
    TransportKind kind = TransportKind.of(group);
    if (kind.supportsDomainSockets()) {
      return new ClientLoops(group, kind.clientChannelFactory(true));
    }
    ServerLoops shared = sharedDomainSocketLoops(address);
    return new ClientLoops(
        shared.workers(), TransportKind.of(shared.workers()).clientChannelFactory(true));
  }

  /**
   * The loops and listening channel type for a server on {@code address} (a Netty address) wanted
   * on {@code boss} and {@code workers}, which must be of one kind: see the class doc.
   *
   * @throws IllegalArgumentException for a domain socket address where no native kind runs
   */
  public static ServerLoops forServer(
      EventLoopGroup boss, EventLoopGroup workers, SocketAddress address) {
    if (!DomainSockets.isDomainSocket(address)) {
      return new ServerLoops(boss, workers, serverChannelFactory(boss));
    }
    TransportKind kind = TransportKind.of(boss);
    if (kind.supportsDomainSockets()) {
      return new ServerLoops(boss, workers, kind.serverChannelFactory(true));
    }
    return sharedDomainSocketLoops(address);
  }

  /** Tern's shared native loops for domain sockets, with the server channel type of their kind. */
  private static synchronized ServerLoops sharedDomainSocketLoops(SocketAddress address) {
    TransportKind kind = sharedKind();
    if (kind.supportsDomainSockets()) {
      return new ServerLoops(
          sharedBossGroup(), sharedWorkerGroup(), kind.serverChannelFactory(true));
    }
    if (domainSocketWorkers == null) {
      TransportKind fallback = nativeKindOrNull();
      if (fallback == null) {
        throw new IllegalArgumentException(
            "Unix domain socket address "
                + address
                + " needs a native transport and none runs here: add "
                + DomainSockets.NATIVE_ARTIFACT
                + " to the class path (epoll: "
                + TransportKind.EPOLL.unavailabilityReason()
                + "; io_uring: "
                + TransportKind.IO_URING.unavailabilityReason()
                + ")");
      }
      domainSocketBoss = newGroup(fallback, 1, "tern-netty-uds-boss");
      domainSocketWorkers = newGroup(fallback, 0, "tern-netty-uds-worker");
    }
    return new ServerLoops(
        domainSocketBoss,
        domainSocketWorkers,
        TransportKind.of(domainSocketBoss).serverChannelFactory(true));
  }

  private static TransportKind nativeKindOrNull() {
    if (TransportKind.EPOLL.isAvailable()) {
      return TransportKind.EPOLL;
    }
    return TransportKind.IO_URING.isAvailable() ? TransportKind.IO_URING : null;
  }
}
