package dev.tern.netty.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

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
 * <p>The channel type follows the group: the socket channel of the group's kind.
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
}
